// ReduceL2 (Y = sqrt(sum X^2)): dX = dY * X / Y, and 0 where Y is 0 (PyTorch's norm), Y and dY
// with the reduced dims kept (reduce_common.h).
#include "training/gradients/reduce_common.h"

namespace onyx::training {
namespace {

Status reduce_l2_gradient(GradientContext& ctx) {
  return kept_reduction_gradient(ctx, [](GradientEmitter& e, const KeptReduction& r, const std::string& x,
                                         DataType t) -> Result<std::string> {
    ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(t, 0.0));
    return e.op("Mul", {r.dy, e.op("Where", {e.op("Equal", {r.y, zero}), zero, e.op("Div", {x, r.y})})});
  });
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "ReduceL2", reduce_l2_gradient);
}  // namespace onyx::training
