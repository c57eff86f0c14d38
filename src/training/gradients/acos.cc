// Acos: dX = -dY / sqrt(1 - X^2).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status acos_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const std::string& x = ctx.input(0);
  const std::string& dy = ctx.output_grads[0];
  const DataType t = ctx.elem_type(x);
  ONYX_ASSIGN_OR_RETURN(std::string one, e.scalar(t, 1.0));
  ctx.input_grads[0] = e.op("Neg", {e.op("Div", {dy, e.op("Sqrt", {e.op("Sub", {one, e.op("Mul", {x, x})})})})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Acos", acos_gradient);
}  // namespace onyx::training
