// Acosh: dX = dY / sqrt(X^2 - 1).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status acosh_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const std::string& x = ctx.input(0);
  const std::string& dy = ctx.output_grads[0];
  const DataType t = ctx.elem_type(x);
  ONYX_ASSIGN_OR_RETURN(std::string one, e.scalar(t, 1.0));
  ctx.input_grads[0] = e.op("Div", {dy, e.op("Sqrt", {e.op("Sub", {e.op("Mul", {x, x}), one})})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Acosh", acosh_gradient);
}  // namespace onyx::training
