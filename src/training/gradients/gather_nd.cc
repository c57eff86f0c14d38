// GatherND (batch_dims 0): dData = dY added into zeros of data's shape at the gathered slices
// (ScatterND with reduction "add", opset 16 on, so slices gathered twice get both); the indices
// get no gradient.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status gather_nd_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  if (const ir::Attribute* b = ctx.node.attribute("batch_dims"); b && b->i != 0)
    return not_implemented("GatherND's gradient with batch_dims ", b->i);
  if (e.opset() < 16) return not_implemented("GatherND's gradient needs ScatterND with reduction (opset 16 on)");
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(ctx.elem_type(ctx.input(0)), 0.0));
  ctx.input_grads[0] = e.op("ScatterND", {e.op("Expand", {zero, e.op("Shape", {ctx.input(0)})}), ctx.input(1),
                                          ctx.output_grads[0]},
                            {{"reduction", GradientEmitter::string_attr("reduction", "add")}});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "GatherND", gather_nd_gradient);
}  // namespace onyx::training
