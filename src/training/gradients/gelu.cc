// The GELU family: dX = GeluGrad(dY, X) (onyx's fused ai.onyx.training kernel, one pass).
//   ai.onnx Gelu (opset 20): its approximate attribute ("none" or "tanh") passes through.
//   com.microsoft Gelu: the erf form.
//   com.microsoft FastGelu(X, bias?): the tanh form of X + bias; dBias = dX summed over every
//   dim but the last (bias is 1-D along it; a bias of length 1 sums to one element).
// make_training_models fuses the exported erf and tanh patterns into these ops first, so
// their backward is one node instead of a dozen, and only X is kept for it.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

std::string gelu_grad(GradientContext& ctx, const std::string& x, const std::string& approximate) {
  ir::Attribute a;
  a.name = "approximate";
  a.type = ir::Attribute::Type::kString;
  a.s = approximate;
  return ctx.emit.node("GeluGrad", {ctx.output_grads[0], x}, {{"approximate", a}}, 1, "ai.onyx.training")[0];
}

Status onnx_gelu_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  const ir::Attribute* a = ctx.node.attribute("approximate");
  ctx.input_grads[0] = gelu_grad(ctx, ctx.input(0), a ? a->s : "none");
  return Status::Ok();
}

Status ms_gelu_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  ctx.input_grads[0] = gelu_grad(ctx, ctx.input(0), "none");
  return Status::Ok();
}

Status fast_gelu_gradient(GradientContext& ctx) {
  if (ctx.output_grads[0].empty()) return Status::Ok();
  const bool has_bias = ctx.node.inputs.size() > 1 && !ctx.node.inputs[1].empty();
  const bool bias_grad = has_bias && ctx.needs_grad[1];
  if (!ctx.needs_grad[0] && !bias_grad) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const std::string v = has_bias ? e.op("Add", {ctx.input(0), ctx.input(1)}) : ctx.input(0);
  const std::string dv = gelu_grad(ctx, v, "tanh");
  if (ctx.needs_grad[0]) {
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[0], e.sum_to_shape_of(dv, ctx.output(0), ctx.input(0)));
  }
  if (bias_grad) {
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[1], e.sum_to_shape_of(dv, ctx.output(0), ctx.input(1)));
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Gelu", onnx_gelu_gradient);
ONYX_REGISTER_GRADIENT("com.microsoft", "Gelu", ms_gelu_gradient);
ONYX_REGISTER_GRADIENT("com.microsoft", "FastGelu", fast_gelu_gradient);
}  // namespace onyx::training
