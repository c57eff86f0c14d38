// Neg: dX = -dY.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status neg_gradient(GradientContext& ctx) {
  if (ctx.needs_grad[0] && !ctx.output_grads[0].empty()) ctx.input_grads[0] = ctx.emit.op("Neg", {ctx.output_grads[0]});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Neg", neg_gradient);
}  // namespace onyx::training
