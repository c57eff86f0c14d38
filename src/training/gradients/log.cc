// Log: dX = dY / X.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status log_gradient(GradientContext& ctx) {
  if (ctx.needs_grad[0] && !ctx.output_grads[0].empty())
    ctx.input_grads[0] = ctx.emit.op("Div", {ctx.output_grads[0], ctx.input(0)});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Log", log_gradient);
}  // namespace onyx::training
