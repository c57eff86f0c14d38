// Div (Y = A / B): dA = dY / B and dB = -dY * Y / B, each summed back to its input's shape.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status div_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const std::string dy_over_b = e.op("Div", {dy, ctx.input(1)});
  if (ctx.needs_grad[0]) {
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[0], e.sum_to_shape_of(dy_over_b, ctx.output(0), ctx.input(0)));
  }
  if (ctx.needs_grad[1]) {
    const std::string full = e.op("Neg", {e.op("Mul", {dy_over_b, ctx.output(0)})});
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[1], e.sum_to_shape_of(full, ctx.output(0), ctx.input(1)));
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Div", div_gradient);
}  // namespace onyx::training
