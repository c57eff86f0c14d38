// Gather along axis 0 (embeddings): d data = zeros of data's shape with each dY row added at
// its index (ScatterND with reduction "add", opset 16: repeated indices sum). Negative indices
// count from the end. Other axes are refused by name; the indices get no gradient.
#include "training/gradients/loss_common.h"

namespace onyx::training {
namespace {

Status gather_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const ir::Attribute* a = ctx.node.attribute("axis");
  if (a && a->i != 0) return not_implemented("Gather's gradient along axis ", a->i, " (axis 0 only)");
  if (e.opset() < 16) return not_implemented("Gather's gradient before opset 16 (ScatterND adds from 16)");
  const std::string& data = ctx.input(0);
  const DataType it = ctx.elem_type(ctx.input(1));
  if (it != DataType::kInt64 && it != DataType::kInt32)
    return not_implemented("Gather's gradient needs int32 or int64 indices with a static type");
  std::string indices = ctx.input(1);
  if (it == DataType::kInt32) indices = e.op("Cast", {indices}, {{"to", GradientEmitter::int_attr("to", int64_t(DataType::kInt64))}});
  ONYX_ASSIGN_OR_RETURN(std::string zero_index, e.scalar(DataType::kInt64, 0.0));
  const std::string rows = e.op("Gather", {e.op("Shape", {data}), e.int64s({0})});
  indices = e.op("Where", {e.op("Less", {indices, zero_index}), e.op("Add", {indices, rows}), indices});
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(ctx.elem_type(data), 0.0));
  const std::string zeros = e.op("Expand", {zero, e.op("Shape", {data})});
  ctx.input_grads[0] = e.op("ScatterND", {zeros, unsqueeze_axis(e, indices, -1), ctx.output_grads[0]},
                            {{"reduction", [] {
                                ir::Attribute r;
                                r.name = "reduction";
                                r.type = ir::Attribute::Type::kString;
                                r.s = "add";
                                return r;
                              }()}});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Gather", gather_gradient);
}  // namespace onyx::training
