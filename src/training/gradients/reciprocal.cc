// Reciprocal (Y = 1 / X): dX = -dY * Y * Y.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status reciprocal_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const std::string& y = ctx.output(0);
  ctx.input_grads[0] = e.op("Neg", {e.op("Mul", {ctx.output_grads[0], e.op("Mul", {y, y})})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Reciprocal", reciprocal_gradient);
}  // namespace onyx::training
