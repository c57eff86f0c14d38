// InstanceNormalization(X, scale, B): with the spatial dims A = 2.. of X (rank static, >= 3),
// mean and rstd = 1 / sqrt(var + epsilon) over A recomputed from X, xhat = (X - mean) * rstd and
// g = dY * scale (per channel):
//   dX = rstd * (g - mean_A(g) - xhat * mean_A(g * xhat))
//   dScale = sum over (0, A) of dY * xhat;   dB = sum over (0, A) of dY
// PyTorch's GroupNorm exports through this op.
#include "training/gradients/reduce_common.h"

namespace onyx::training {
namespace {

Status instance_normalization_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const SymbolicShape& shape = e.type_of(ctx.input(0)).shape;
  if (!shape.has_rank || shape.dims.size() < 3)
    return not_implemented("InstanceNormalization's gradient needs the input's rank known statically (3 or more)");
  const int64_t rank = int64_t(shape.dims.size());
  const DataType t = ctx.elem_type(ctx.input(0));
  std::vector<int64_t> spatial, per_channel{0}, channel_axes;
  for (int64_t i = 2; i < rank; ++i) {
    spatial.push_back(i);
    per_channel.push_back(i);
    channel_axes.push_back(i - 1);
  }
  auto mean = [&](const std::string& v) { return reduce_over(e, "ReduceMean", v, spatial, true); };
  const ir::Attribute* eps_attr = ctx.node.attribute("epsilon");
  ONYX_ASSIGN_OR_RETURN(std::string eps, e.scalar(t, eps_attr ? eps_attr->f : 1e-5));
  const std::string& x = ctx.input(0);
  const std::string centred = e.op("Sub", {x, mean(x)});
  const std::string rstd = e.op("Reciprocal", {e.op("Sqrt", {e.op("Add", {mean(e.op("Mul", {centred, centred})), eps})})});
  const std::string xhat = e.op("Mul", {centred, rstd});
  if (ctx.needs_grad[0]) {
    const std::string scale = e.unsqueeze(ctx.input(1), channel_axes);  // [C, 1, ...]
    const std::string g = e.op("Mul", {dy, scale});
    const std::string inner = e.op("Sub", {e.op("Sub", {g, mean(g)}), e.op("Mul", {xhat, mean(e.op("Mul", {g, xhat}))})});
    ctx.input_grads[0] = e.op("Mul", {rstd, inner});
  }
  if (ctx.needs_grad[1]) ctx.input_grads[1] = e.reduce_sum(e.op("Mul", {dy, xhat}), per_channel, false);
  if (ctx.needs_grad[2]) ctx.input_grads[2] = e.reduce_sum(dy, per_channel, false);
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "InstanceNormalization", instance_normalization_gradient);
}  // namespace onyx::training
