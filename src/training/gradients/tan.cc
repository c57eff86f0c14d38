// Tan (Y = tan X): dX = dY * (1 + Y^2).
#include "training/gradients/unary_common.h"

namespace onyx::training {
namespace {

Status tan_gradient(GradientContext& ctx) {
  return unary_gradient(ctx, [](GradientEmitter& e, const std::string& /*x*/, const std::string& y, const std::string& dy,
                                DataType t) -> Result<std::string> {
    ONYX_ASSIGN_OR_RETURN(std::string one, one_of(e, t));
    return e.op("Mul", {dy, e.op("Add", {one, e.op("Mul", {y, y})})});
  });
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Tan", tan_gradient);
}  // namespace onyx::training
