// ReduceL1 (Y = sum |X|): dX = dY * sign(X), dY with the reduced dims kept (reduce_common.h).
#include "training/gradients/reduce_common.h"

namespace onyx::training {
namespace {

Status reduce_l1_gradient(GradientContext& ctx) {
  return kept_reduction_gradient(ctx, [](GradientEmitter& e, const KeptReduction& r, const std::string& x,
                                         DataType /*t*/) -> Result<std::string> {
    return e.op("Mul", {r.dy, e.op("Sign", {x})});
  });
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "ReduceL1", reduce_l1_gradient);
}  // namespace onyx::training
