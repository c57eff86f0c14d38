// ReduceLogSumExp: dX = dY * exp(X - Y), Y and dY with the reduced dims kept (reduce_common.h).
#include "training/gradients/reduce_common.h"

namespace onyx::training {
namespace {

Status reduce_log_sum_exp_gradient(GradientContext& ctx) {
  return kept_reduction_gradient(ctx, [](GradientEmitter& e, const KeptReduction& r, const std::string& x,
                                         DataType /*t*/) -> Result<std::string> {
    return e.op("Mul", {r.dy, e.op("Exp", {e.op("Sub", {x, r.y})})});
  });
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "ReduceLogSumExp", reduce_log_sum_exp_gradient);
}  // namespace onyx::training
