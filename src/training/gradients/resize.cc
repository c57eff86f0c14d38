// Resize (opset 11 on): dX = ResizeGrad(X, roi, scales, sizes, dY) with Resize's attributes and
// the model's opset as forward_opset (src/kernels/cpu/resize_grad.cc); roi, scales and sizes
// get no gradient.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status resize_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  if (e.opset() < 11) return not_implemented("Resize's gradient before opset 11 (the model's opset is ", e.opset(), ")");
  std::vector<std::string> inputs;
  for (size_t i = 0; i < 4; ++i) inputs.push_back(i < ctx.node.inputs.size() ? ctx.node.inputs[i] : "");
  inputs.push_back(ctx.output_grads[0]);
  std::map<std::string, ir::Attribute> attributes = ctx.node.attributes;
  attributes["forward_opset"] = GradientEmitter::int_attr("forward_opset", e.opset());
  ctx.input_grads[0] = e.node("ResizeGrad", inputs, std::move(attributes), 1, "ai.onyx.training")[0];
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Resize", resize_gradient);
}  // namespace onyx::training
