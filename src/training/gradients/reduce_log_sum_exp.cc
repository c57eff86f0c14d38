// ReduceLogSumExp: dX = dY * exp(X - Y), Y and dY with the reduced dims kept (reduce_common.h).
#include "training/gradients/reduce_common.h"

namespace onyx::training {
namespace {

Status reduce_log_sum_exp_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  ONYX_ASSIGN_OR_RETURN(const KeptReduction r, kept_reduction(ctx));
  ctx.input_grads[0] = r.nothing ? ctx.output_grads[0]
                                 : e.op("Mul", {r.dy, e.op("Exp", {e.op("Sub", {ctx.input(0), r.y})})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "ReduceLogSumExp", reduce_log_sum_exp_gradient);
}  // namespace onyx::training
