// Sinh: dX = dY * cosh(X).
#include "training/gradients/unary_common.h"

namespace onyx::training {
namespace {

Status sinh_gradient(GradientContext& ctx) {
  return unary_gradient(ctx, [](GradientEmitter& e, const std::string& x, const std::string& /*y*/, const std::string& dy,
                                DataType /*t*/) -> Result<std::string> {
    return e.op("Mul", {dy, e.op("Cosh", {x})});
  });
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Sinh", sinh_gradient);
}  // namespace onyx::training
