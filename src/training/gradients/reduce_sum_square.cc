// ReduceSumSquare (Y = sum X^2): dX = 2 * X * dY, dY with the reduced dims kept (reduce_common.h).
#include "training/gradients/reduce_common.h"

namespace onyx::training {
namespace {

Status reduce_sum_square_gradient(GradientContext& ctx) {
  return kept_reduction_gradient(ctx, [](GradientEmitter& e, const KeptReduction& r, const std::string& x,
                                         DataType t) -> Result<std::string> {
    ONYX_ASSIGN_OR_RETURN(std::string two, e.scalar(t, 2.0));
    return e.op("Mul", {r.dy, e.op("Mul", {x, two})});
  });
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "ReduceSumSquare", reduce_sum_square_gradient);
}  // namespace onyx::training
