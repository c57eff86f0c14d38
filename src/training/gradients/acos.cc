// Acos: dX = -dY / sqrt(1 - X^2).
#include "training/gradients/unary_common.h"

namespace onyx::training {
namespace {

Status acos_gradient(GradientContext& ctx) {
  return unary_gradient(ctx, [](GradientEmitter& e, const std::string& x, const std::string& /*y*/, const std::string& dy,
                                DataType t) -> Result<std::string> {
    ONYX_ASSIGN_OR_RETURN(std::string one, one_of(e, t));
    return e.op("Neg", {e.op("Div", {dy, e.op("Sqrt", {e.op("Sub", {one, e.op("Mul", {x, x})})})})});
  });
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Acos", acos_gradient);
}  // namespace onyx::training
