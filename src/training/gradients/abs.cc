// Abs: dX = dY * sign(X) (0 at 0, as PyTorch takes it).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status abs_gradient(GradientContext& ctx) {
  if (ctx.needs_grad[0] && !ctx.output_grads[0].empty())
    ctx.input_grads[0] = ctx.emit.op("Mul", {ctx.output_grads[0], ctx.emit.op("Sign", {ctx.input(0)})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Abs", abs_gradient);
}  // namespace onyx::training
