// Mul: dA = dY * B and dB = dY * A, each summed back to its input's shape (broadcasting).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status mul_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  for (size_t i = 0; i < 2; ++i) {
    if (!ctx.needs_grad[i]) continue;
    const std::string full = ctx.emit.op("Mul", {dy, ctx.input(1 - i)});
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[i], ctx.emit.sum_to_shape_of(full, ctx.output(0), ctx.input(i)));
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Mul", mul_gradient);
}  // namespace onyx::training
