// Sin: dX = dY * cos(X).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status sin_gradient(GradientContext& ctx) {
  if (ctx.needs_grad[0] && !ctx.output_grads[0].empty())
    ctx.input_grads[0] = ctx.emit.op("Mul", {ctx.output_grads[0], ctx.emit.op("Cos", {ctx.input(0)})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Sin", sin_gradient);
}  // namespace onyx::training
