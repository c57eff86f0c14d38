// Sub: dA = dY, dB = -dY, each summed back to its input's shape (broadcasting).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status sub_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  if (ctx.needs_grad[0]) {
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[0], ctx.emit.sum_to_shape_of(dy, ctx.output(0), ctx.input(0)));
  }
  if (ctx.needs_grad[1]) {
    const std::string neg = ctx.emit.op("Neg", {dy});
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[1], ctx.emit.sum_to_shape_of(neg, ctx.output(0), ctx.input(1)));
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Sub", sub_gradient);
}  // namespace onyx::training
