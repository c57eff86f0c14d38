// Relu: dX = dY where Y > 0, else 0: onyx's ai.onyx.training ReluGrad(dY, Y) for float32 and
// float64 (one pass), Where(Greater(Y, 0), dY, 0) for the other types.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status relu_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const DataType t = ctx.elem_type(ctx.output(0));
  if (t == DataType::kFloat || t == DataType::kDouble) {
    ctx.input_grads[0] = e.node("ReluGrad", {ctx.output_grads[0], ctx.output(0)}, {}, 1, "ai.onyx.training")[0];
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(t, 0.0));
  ctx.input_grads[0] = e.op("Where", {e.op("Greater", {ctx.output(0), zero}), ctx.output_grads[0], zero});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Relu", relu_gradient);
}  // namespace onyx::training
