// Acosh: dX = dY / sqrt(X^2 - 1).
#include "training/gradients/unary_common.h"

namespace onyx::training {
namespace {

Status acosh_gradient(GradientContext& ctx) {
  return unary_gradient(ctx, [](GradientEmitter& e, const std::string& x, const std::string& /*y*/, const std::string& dy,
                                DataType t) -> Result<std::string> {
    ONYX_ASSIGN_OR_RETURN(std::string one, one_of(e, t));
    return e.op("Div", {dy, e.op("Sqrt", {e.op("Sub", {e.op("Mul", {x, x}), one})})});
  });
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Acosh", acosh_gradient);
}  // namespace onyx::training
