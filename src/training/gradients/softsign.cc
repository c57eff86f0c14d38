// Softsign (Y = X / (1 + |X|)): dX = dY / (1 + |X|)^2.
#include "training/gradients/unary_common.h"

namespace onyx::training {
namespace {

Status softsign_gradient(GradientContext& ctx) {
  return unary_gradient(ctx, [](GradientEmitter& e, const std::string& x, const std::string& /*y*/, const std::string& dy,
                                DataType t) -> Result<std::string> {
    ONYX_ASSIGN_OR_RETURN(std::string one, one_of(e, t));
    const std::string d = e.op("Add", {one, e.op("Abs", {x})});
    return e.op("Div", {dy, e.op("Mul", {d, d})});
  });
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Softsign", softsign_gradient);
}  // namespace onyx::training
