// ScatterND(data, indices, updates): without reduction, dData = dY with the written slices
// zeroed (their data was overwritten) and dUpdates = GatherND(dY, indices); with reduction
// "add", dData = dY and dUpdates as before. Other reductions are refused; the indices get no
// gradient. (Indices written twice keep the last update, as the op does; PyTorch leaves that
// order unspecified.)
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status scatter_nd_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const ir::Attribute* r = ctx.node.attribute("reduction");
  const std::string reduction = r ? r->s : "none";
  if (reduction != "none" && reduction != "add") return not_implemented("ScatterND's gradient with reduction ", reduction);
  if (ctx.needs_grad[0]) {
    if (reduction == "add") {
      ctx.input_grads[0] = dy;
    } else {
      ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(ctx.elem_type(ctx.input(0)), 0.0));
      ctx.input_grads[0] =
          e.op("ScatterND", {dy, ctx.input(1), e.op("Expand", {zero, e.op("Shape", {ctx.input(2)})})});
    }
  }
  if (ctx.needs_grad[2]) ctx.input_grads[2] = e.op("GatherND", {dy, ctx.input(1)});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "ScatterND", scatter_nd_gradient);
}  // namespace onyx::training
