// BatchNormalization over the channels (dim 1). In training mode (training_mode = 1, the batch's
// statistics): with xhat = (X - mean_b) * inv_std_b over N and the spatial dims,
//   dX = scale * inv_std_b * (dY - mean(dY) - xhat * mean(dY * xhat));
// in inference mode (the running statistics, constants here): dX = dY * scale * inv_std.
// dScale = sum(dY * xhat) and dB = sum(dY) over every dim but the channels. The running
// statistics get no gradient. In training mode a float32 or float64 X takes onyx's fused
// kernel (ai.onyx.training BatchNormalizationGrad: all three in two passes over the
// activations); the other types the elementwise ops above.
#include "training/gradients/loss_common.h"

namespace onyx::training {
namespace {

Status batch_norm_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const std::string& x = ctx.input(0);
  const SymbolicShape& xs = e.type_of(x).shape;
  if (!xs.has_rank || xs.dims.size() < 2) return not_implemented("BatchNormalization's gradient needs the input's rank");
  const int64_t rank = int64_t(xs.dims.size());
  std::vector<int64_t> axes = {0}, channel_axes;  // reduced axes; where [C] is unsqueezed to broadcast
  for (int64_t i = 2; i < rank; ++i) axes.push_back(i);
  for (int64_t i = 0; i < rank; ++i)
    if (i != 1) channel_axes.push_back(i);
  const DataType t = ctx.elem_type(x);
  const ir::Attribute* eps_attr = ctx.node.attribute("epsilon");
  const ir::Attribute* mode = ctx.node.attribute("training_mode");
  const bool training = mode && mode->i != 0;
  if (training && (t == DataType::kFloat || t == DataType::kDouble) && ctx.elem_type(ctx.input(1)) == t) {
    const auto grads = e.node("BatchNormalizationGrad", {dy, x, ctx.input(1)},
                              {{"epsilon", GradientEmitter::float_attr("epsilon", eps_attr ? eps_attr->f : 1e-5f)}}, 3,
                              "ai.onyx.training");
    for (size_t i = 0; i < 3; ++i)
      if (ctx.needs_grad[i]) ctx.input_grads[i] = grads[i];
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(std::string eps, e.scalar(t, eps_attr ? eps_attr->f : 1e-5));
  ONYX_ASSIGN_OR_RETURN(std::string one, e.scalar(t, 1.0));
  auto per_channel = [&](const std::string& v) { return e.unsqueeze(v, channel_axes); };  // [C] -> [1, C, 1, ...]
  auto mean = [&](const std::string& v) {
    if (e.opset() >= 18) return e.op("ReduceMean", {v, e.int64s(axes)});
    return e.op("ReduceMean", {v}, {{"axes", GradientEmitter::ints_attr("axes", axes)}});
  };
  std::string centred, inv_std;
  if (training) {
    centred = e.op("Sub", {x, mean(x)});
    inv_std = e.op("Div", {one, e.op("Sqrt", {e.op("Add", {mean(e.op("Mul", {centred, centred})), eps})})});
  } else {
    centred = e.op("Sub", {x, per_channel(ctx.input(3))});
    inv_std = e.op("Div", {one, e.op("Sqrt", {e.op("Add", {per_channel(ctx.input(4)), eps})})});
  }
  const std::string xhat = e.op("Mul", {centred, inv_std});
  if (ctx.needs_grad[0]) {
    const std::string gain = e.op("Mul", {per_channel(ctx.input(1)), inv_std});
    if (training) {
      const std::string inner = e.op("Sub", {e.op("Sub", {dy, mean(dy)}), e.op("Mul", {xhat, mean(e.op("Mul", {dy, xhat}))})});
      ctx.input_grads[0] = e.op("Mul", {gain, inner});
    } else {
      ctx.input_grads[0] = e.op("Mul", {dy, gain});
    }
  }
  if (ctx.needs_grad[1]) ctx.input_grads[1] = e.reduce_sum(e.op("Mul", {dy, xhat}), axes, false);
  if (ctx.needs_grad[2]) ctx.input_grads[2] = e.reduce_sum(dy, axes, false);
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "BatchNormalization", batch_norm_gradient);
}  // namespace onyx::training
