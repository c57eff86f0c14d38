// PRelu(X, slope): dX = dY where X > 0, else dY * slope; dSlope = dY * X where X <= 0, summed
// back to the slope's shape (it broadcasts against X).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status prelu_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(ctx.elem_type(ctx.output(0)), 0.0));
  const std::string positive = e.op("Greater", {ctx.input(0), zero});
  if (ctx.needs_grad[0]) {
    const std::string full = e.op("Where", {positive, dy, e.op("Mul", {dy, ctx.input(1)})});
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[0], e.sum_to_shape_of(full, ctx.output(0), ctx.input(0)));
  }
  if (ctx.needs_grad[1]) {
    const std::string full = e.op("Where", {positive, zero, e.op("Mul", {dy, ctx.input(0)})});
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[1], e.sum_to_shape_of(full, ctx.output(0), ctx.input(1)));
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "PRelu", prelu_gradient);
}  // namespace onyx::training
