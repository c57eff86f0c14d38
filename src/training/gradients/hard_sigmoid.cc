// HardSigmoid (alpha 0.2, beta 0.5 by default): Y = clip(alpha * X + beta, 0, 1), so dX =
// alpha * dY where 0 < alpha * X + beta < 1, else 0 (PyTorch's rule: 0 at the corners).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status hard_sigmoid_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const ir::Attribute* a = ctx.node.attribute("alpha");
  const ir::Attribute* b = ctx.node.attribute("beta");
  const DataType t = ctx.elem_type(ctx.input(0));
  ONYX_ASSIGN_OR_RETURN(std::string alpha, e.scalar(t, a ? a->f : 0.2));
  ONYX_ASSIGN_OR_RETURN(std::string beta, e.scalar(t, b ? b->f : 0.5));
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(t, 0.0));
  ONYX_ASSIGN_OR_RETURN(std::string one, e.scalar(t, 1.0));
  const std::string z = e.op("Add", {e.op("Mul", {ctx.input(0), alpha}), beta});
  const std::string inside = e.op("And", {e.op("Greater", {z, zero}), e.op("Less", {z, one})});
  ctx.input_grads[0] = e.op("Where", {inside, e.op("Mul", {ctx.output_grads[0], alpha}), zero});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "HardSigmoid", hard_sigmoid_gradient);
}  // namespace onyx::training
