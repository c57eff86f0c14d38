// Identity: dX = dY.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status identity_gradient(GradientContext& ctx) {
  if (ctx.needs_grad[0]) ctx.input_grads[0] = ctx.output_grads[0];
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Identity", identity_gradient);
}  // namespace onyx::training
