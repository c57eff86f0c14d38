// Relu: dX = dY where Y > 0, else 0.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status relu_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(ctx.elem_type(ctx.output(0)), 0.0));
  ctx.input_grads[0] = e.op("Where", {e.op("Greater", {ctx.output(0), zero}), ctx.output_grads[0], zero});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Relu", relu_gradient);
}  // namespace onyx::training
