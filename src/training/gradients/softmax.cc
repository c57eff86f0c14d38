// Softmax (Y = softmax(X) over `axis`): dX = Y * (dY - sum(dY * Y, axis)); over the last axis
// in float32, onyx's fused SoftmaxGrad kernel (ai.onyx.training: one pass per row).
#include "training/gradients/softmax_common.h"

namespace onyx::training {
namespace {

Status softmax_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  ONYX_ASSIGN_OR_RETURN(int64_t axis, softmax_axis(ctx));
  GradientEmitter& e = ctx.emit;
  const std::string& y = ctx.output(0);
  const SymbolicShape& ys = e.type_of(y).shape;
  const bool last_axis = axis == -1 || (ys.has_rank && axis == int64_t(ys.dims.size()) - 1);
  if (last_axis && ctx.elem_type(y) == DataType::kFloat) {
    ctx.input_grads[0] = e.node("SoftmaxGrad", {ctx.output_grads[0], y}, {}, 1, "ai.onyx.training")[0];
    return Status::Ok();
  }
  const std::string dot = e.reduce_sum(e.op("Mul", {ctx.output_grads[0], y}), {axis}, true);
  ctx.input_grads[0] = e.op("Mul", {y, e.op("Sub", {ctx.output_grads[0], dot})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Softmax", softmax_gradient);
}  // namespace onyx::training
