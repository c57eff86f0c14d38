// Sinh: dX = dY * cosh(X).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status sinh_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const std::string& x = ctx.input(0);
  const std::string& dy = ctx.output_grads[0];
  ctx.input_grads[0] = e.op("Mul", {dy, e.op("Cosh", {x})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Sinh", sinh_gradient);
}  // namespace onyx::training
