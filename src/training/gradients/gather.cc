// Gather along axis 0 (embeddings): d data = zeros of data's shape with each dY row added at
// its index (onyx's GatherGrad kernel, ai.onyx.training: repeated indices sum, negative ones
// count from the end). Other axes are refused by name; the indices get no gradient.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status gather_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const ir::Attribute* a = ctx.node.attribute("axis");
  if (a && a->i != 0) return not_implemented("Gather's gradient along axis ", a->i, " (axis 0 only)");
  const std::string& data = ctx.input(0);
  const DataType it = ctx.elem_type(ctx.input(1));
  if (it != DataType::kInt64 && it != DataType::kInt32)
    return not_implemented("Gather's gradient needs int32 or int64 indices with a static type");
  const DataType dt = ctx.elem_type(data);
  if (dt != DataType::kFloat && dt != DataType::kDouble)
    return not_implemented("Gather's gradient for ", data_type_name(dt), " data (float32 and double)");
  ctx.input_grads[0] = e.node("GatherGrad", {ctx.output_grads[0], ctx.input(1), data}, {}, 1, "ai.onyx.training")[0];
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Gather", gather_gradient);
}  // namespace onyx::training
