// Cosh: dX = dY * sinh(X).
#include "training/gradients/unary_common.h"

namespace onyx::training {
namespace {

Status cosh_gradient(GradientContext& ctx) {
  return unary_gradient(ctx, [](GradientEmitter& e, const std::string& x, const std::string& /*y*/, const std::string& dy,
                                DataType /*t*/) -> Result<std::string> {
    return e.op("Mul", {dy, e.op("Sinh", {x})});
  });
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Cosh", cosh_gradient);
}  // namespace onyx::training
