// Cos: dX = -dY * sin(X).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status cos_gradient(GradientContext& ctx) {
  if (ctx.needs_grad[0] && !ctx.output_grads[0].empty())
    ctx.input_grads[0] =
        ctx.emit.op("Neg", {ctx.emit.op("Mul", {ctx.output_grads[0], ctx.emit.op("Sin", {ctx.input(0)})})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Cos", cos_gradient);
}  // namespace onyx::training
