// HardSwish (Y = X * clip(X / 6 + 1/2, 0, 1)): dX = 0 where X < -3, dY * (X / 3 + 1/2) where
// X <= 3, else dY (PyTorch's rule at the corners).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status hard_swish_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const DataType t = ctx.elem_type(ctx.input(0));
  const std::string& x = ctx.input(0);
  const std::string& dy = ctx.output_grads[0];
  ONYX_ASSIGN_OR_RETURN(std::string minus_three, e.scalar(t, -3.0));
  ONYX_ASSIGN_OR_RETURN(std::string three, e.scalar(t, 3.0));
  ONYX_ASSIGN_OR_RETURN(std::string third, e.scalar(t, 1.0 / 3.0));
  ONYX_ASSIGN_OR_RETURN(std::string half, e.scalar(t, 0.5));
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(t, 0.0));
  const std::string ramp = e.op("Mul", {dy, e.op("Add", {e.op("Mul", {x, third}), half})});
  const std::string upper = e.op("Where", {e.op("LessOrEqual", {x, three}), ramp, dy});
  ctx.input_grads[0] = e.op("Where", {e.op("Less", {x, minus_three}), zero, upper});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "HardSwish", hard_swish_gradient);
}  // namespace onyx::training
