// MaxPool: each window's gradient goes to its maximum. For float types, onyx's fused
// ai.onyx.training MaxPoolGrad(dY, X) with the forward attributes; otherwise the pooling is
// run again for its Indices (flat positions in X, N and C included) and dX = the dY values
// added at those positions (ScatterND add, so overlapping windows sum) in zeros shaped as X.
#include "training/gradients/loss_common.h"

namespace onyx::training {
namespace {

Status max_pool_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  if (const ir::Attribute* so = ctx.node.attribute("storage_order"); so && so->i != 0)
    return not_implemented("MaxPool's gradient with storage_order 1");
  const std::string& x = ctx.input(0);
  if (is_float_type(ctx.elem_type(x))) {
    ctx.input_grads[0] = e.node("MaxPoolGrad", {ctx.output_grads[0], x}, ctx.node.attributes, 1, "ai.onyx.training")[0];
    return Status::Ok();
  }
  if (e.opset() < 16) return not_implemented("MaxPool's gradient before opset 16 (ScatterND adds from 16)");
  const std::string indices = e.node("MaxPool", {ctx.input(0)}, ctx.node.attributes, 2)[1];
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(ctx.elem_type(x), 0.0));
  const std::string flat_zeros = e.op("Expand", {zero, e.op("Reshape", {e.op("Size", {x}), e.int64s({1})})});
  const std::string flat_indices = unsqueeze_axis(e, e.op("Reshape", {indices, e.int64s({-1})}), -1);
  const std::string flat_dy = e.op("Reshape", {ctx.output_grads[0], e.int64s({-1})});
  ir::Attribute add;
  add.name = "reduction";
  add.type = ir::Attribute::Type::kString;
  add.s = "add";
  const std::string scattered = e.op("ScatterND", {flat_zeros, flat_indices, flat_dy}, {{"reduction", add}});
  ctx.input_grads[0] = e.op("Reshape", {scattered, e.op("Shape", {x})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "MaxPool", max_pool_gradient);
}  // namespace onyx::training
