// Erf: dX = dY * 2 / sqrt(pi) * exp(-X * X) (the exact GELU's inner op).
#include <cmath>

#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status erf_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const std::string& x = ctx.input(0);
  ONYX_ASSIGN_OR_RETURN(std::string scale, e.scalar(ctx.elem_type(x), 2.0 / std::sqrt(M_PI)));
  const std::string bell = e.op("Exp", {e.op("Neg", {e.op("Mul", {x, x})})});
  ctx.input_grads[0] = e.op("Mul", {ctx.output_grads[0], e.op("Mul", {bell, scale})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Erf", erf_gradient);
}  // namespace onyx::training
