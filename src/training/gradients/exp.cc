// Exp: dX = dY * Y.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status exp_gradient(GradientContext& ctx) {
  if (ctx.needs_grad[0] && !ctx.output_grads[0].empty())
    ctx.input_grads[0] = ctx.emit.op("Mul", {ctx.output_grads[0], ctx.output(0)});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Exp", exp_gradient);
}  // namespace onyx::training
