// Softplus (Y = log(1 + exp(X))): dX = dY * sigmoid(X).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status softplus_gradient(GradientContext& ctx) {
  if (ctx.needs_grad[0] && !ctx.output_grads[0].empty())
    ctx.input_grads[0] = ctx.emit.op("Mul", {ctx.output_grads[0], ctx.emit.op("Sigmoid", {ctx.input(0)})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Softplus", softplus_gradient);
}  // namespace onyx::training
