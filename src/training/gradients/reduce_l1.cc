// ReduceL1 (Y = sum |X|): dX = dY * sign(X), dY with the reduced dims kept (reduce_common.h).
#include "training/gradients/reduce_common.h"

namespace onyx::training {
namespace {

Status reduce_l1_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  ONYX_ASSIGN_OR_RETURN(const KeptReduction r, kept_reduction(ctx));
  if (r.nothing) {  // no axes with noop_with_empty_axes: onyx's reduction passes X through
    ctx.input_grads[0] = ctx.output_grads[0];
    return Status::Ok();
  }
  ctx.input_grads[0] = e.op("Mul", {r.dy, e.op("Sign", {ctx.input(0)})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "ReduceL1", reduce_l1_gradient);
}  // namespace onyx::training
