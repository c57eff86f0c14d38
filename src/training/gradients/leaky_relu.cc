// LeakyRelu (alpha, default 0.01): dX = dY where X > 0, else alpha * dY (PyTorch's rule at 0).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status leaky_relu_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const ir::Attribute* a = ctx.node.attribute("alpha");
  const DataType t = ctx.elem_type(ctx.input(0));
  ONYX_ASSIGN_OR_RETURN(std::string alpha, e.scalar(t, a ? a->f : 0.01));
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(t, 0.0));
  const std::string& dy = ctx.output_grads[0];
  ctx.input_grads[0] = e.op("Where", {e.op("Greater", {ctx.input(0), zero}), dy, e.op("Mul", {dy, alpha})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "LeakyRelu", leaky_relu_gradient);
}  // namespace onyx::training
