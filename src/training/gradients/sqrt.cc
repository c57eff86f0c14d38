// Sqrt: dX = dY / (2 * Y).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status sqrt_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  ONYX_ASSIGN_OR_RETURN(std::string half, e.scalar(ctx.elem_type(ctx.output(0)), 0.5));
  ctx.input_grads[0] = e.op("Div", {e.op("Mul", {ctx.output_grads[0], half}), ctx.output(0)});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Sqrt", sqrt_gradient);
}  // namespace onyx::training
