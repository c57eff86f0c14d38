// Softmax (Y = softmax(X) over `axis`): dX = Y * (dY - sum(dY * Y, axis)).
#include "training/gradients/softmax_common.h"

namespace onyx::training {
namespace {

Status softmax_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  ONYX_ASSIGN_OR_RETURN(int64_t axis, softmax_axis(ctx));
  GradientEmitter& e = ctx.emit;
  const std::string& y = ctx.output(0);
  const std::string dot = e.reduce_sum(e.op("Mul", {ctx.output_grads[0], y}), {axis}, true);
  ctx.input_grads[0] = e.op("Mul", {y, e.op("Sub", {ctx.output_grads[0], dot})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Softmax", softmax_gradient);
}  // namespace onyx::training
