// Tanh: dX = dY * (1 - Y * Y).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Result<std::string> one_minus(GradientContext& ctx, const std::string& v) {
  ONYX_ASSIGN_OR_RETURN(std::string one, ctx.emit.scalar(ctx.elem_type(ctx.output(0)), 1.0));
  return ctx.emit.op("Sub", {one, v});
}

Status tanh_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  ONYX_ASSIGN_OR_RETURN(std::string rest, one_minus(ctx, e.op("Mul", {ctx.output(0), ctx.output(0)})));
  ctx.input_grads[0] = e.op("Mul", {ctx.output_grads[0], rest});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Tanh", tanh_gradient);
}  // namespace onyx::training
