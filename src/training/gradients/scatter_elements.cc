// ScatterElements(data, indices, updates, axis): without reduction, dData = dY with the written
// positions zeroed and dUpdates = GatherElements(dY, indices); with reduction "add", dData = dY
// and dUpdates as before. Other reductions are refused; the indices get no gradient.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status scatter_elements_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const ir::Attribute* r = ctx.node.attribute("reduction");
  const std::string reduction = r ? r->s : "none";
  if (reduction != "none" && reduction != "add")
    return not_implemented("ScatterElements' gradient with reduction ", reduction);
  const ir::Attribute* a = ctx.node.attribute("axis");
  const ir::Attribute axis = GradientEmitter::int_attr("axis", a ? a->i : 0);
  if (ctx.needs_grad[0]) {
    if (reduction == "add") {
      ctx.input_grads[0] = dy;
    } else {
      ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(ctx.elem_type(ctx.input(0)), 0.0));
      ctx.input_grads[0] = e.op(
          "ScatterElements", {dy, ctx.input(1), e.op("Expand", {zero, e.op("Shape", {ctx.input(2)})})}, {{"axis", axis}});
    }
  }
  if (ctx.needs_grad[2]) ctx.input_grads[2] = e.op("GatherElements", {dy, ctx.input(1)}, {{"axis", axis}});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "ScatterElements", scatter_elements_gradient);
}  // namespace onyx::training
