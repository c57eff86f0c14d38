// Split: dX = the outputs' gradients concatenated along the axis (zeros for an output no
// gradient reaches).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status split_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0]) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const ir::Attribute* a = ctx.node.attribute("axis");
  const int64_t axis = a ? a->i : 0;
  std::vector<std::string> parts;
  for (size_t k = 0; k < ctx.node.outputs.size(); ++k) {
    if (!ctx.output_grads[k].empty()) {
      parts.push_back(ctx.output_grads[k]);
      continue;
    }
    ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(ctx.elem_type(ctx.input(0)), 0.0));
    parts.push_back(e.op("Expand", {zero, e.op("Shape", {ctx.output(k)})}));
  }
  ctx.input_grads[0] = e.op("Concat", parts, {{"axis", GradientEmitter::int_attr("axis", axis)}});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Split", split_gradient);
}  // namespace onyx::training
