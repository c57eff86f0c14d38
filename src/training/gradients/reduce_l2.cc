// ReduceL2 (Y = sqrt(sum X^2)): dX = dY * X / Y, and 0 where Y is 0 (PyTorch's norm), Y and dY
// with the reduced dims kept (reduce_common.h).
#include "training/gradients/reduce_common.h"

namespace onyx::training {
namespace {

Status reduce_l2_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  ONYX_ASSIGN_OR_RETURN(const KeptReduction r, kept_reduction(ctx));
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(ctx.elem_type(ctx.input(0)), 0.0));
  if (r.nothing) {  // no axes with noop_with_empty_axes: onyx's reduction passes X through
    ctx.input_grads[0] = ctx.output_grads[0];
    return Status::Ok();
  }
  const std::string ratio = e.op("Where", {e.op("Equal", {r.y, zero}), zero, e.op("Div", {ctx.input(0), r.y})});
  ctx.input_grads[0] = e.op("Mul", {r.dy, ratio});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "ReduceL2", reduce_l2_gradient);
}  // namespace onyx::training
