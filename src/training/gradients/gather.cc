// Gather along axis 0 (embeddings): d data = zeros of data's shape with each dY row added at
// its index (onyx's GatherGrad kernel, ai.onyx.training: repeated indices sum, negative ones
// count from the end). Along another axis k (h[:, 0], x[..., idx]), with the ranks of data and
// indices static: the same with axis k brought to the front, dY's index dims too, and the
// result transposed back. The indices get no gradient.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status gather_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const ir::Attribute* a = ctx.node.attribute("axis");
  const std::string& data = ctx.input(0);
  const DataType it = ctx.elem_type(ctx.input(1));
  if (it != DataType::kInt64 && it != DataType::kInt32)
    return not_implemented("Gather's gradient needs int32 or int64 indices with a static type");
  const DataType dt = ctx.elem_type(data);
  if (dt != DataType::kFloat && dt != DataType::kDouble)
    return not_implemented("Gather's gradient for ", data_type_name(dt), " data (float32 and double)");
  int64_t axis = a ? a->i : 0;
  if (axis == 0) {
    ctx.input_grads[0] = e.node("GatherGrad", {ctx.output_grads[0], ctx.input(1), data}, {}, 1, "ai.onyx.training")[0];
    return Status::Ok();
  }
  const SymbolicShape& ds = e.type_of(data).shape;
  const SymbolicShape& is = e.type_of(ctx.input(1)).shape;
  if (!ds.has_rank || !is.has_rank)
    return not_implemented("Gather's gradient along axis ", axis, " needs the ranks of data and indices known statically");
  const int64_t r = int64_t(ds.dims.size()), q = int64_t(is.dims.size());
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return invalid_argument("Gather axis ", a->i, " out of range for rank ", r);
  // data' = data with axis first; dY' = dY with the index dims first (dY is data[:axis] +
  // indices' dims + data[axis+1:]).
  std::vector<int64_t> data_perm{axis}, dy_perm, back(static_cast<size_t>(r));
  for (int64_t i = 0; i < r; ++i)
    if (i != axis) data_perm.push_back(i);
  for (int64_t i = 0; i < q; ++i) dy_perm.push_back(axis + i);
  for (int64_t i = 0; i < axis; ++i) dy_perm.push_back(i);
  for (int64_t i = axis + q; i < r - 1 + q; ++i) dy_perm.push_back(i);
  for (int64_t i = 0; i < r; ++i) back[size_t(data_perm[size_t(i)])] = i;
  auto transposed = [&](const std::string& v, const std::vector<int64_t>& perm) {
    return e.op("Transpose", {v}, {{"perm", GradientEmitter::ints_attr("perm", perm)}});
  };
  const std::string spread = e.node("GatherGrad", {transposed(ctx.output_grads[0], dy_perm), ctx.input(1),
                                                   transposed(data, data_perm)}, {}, 1, "ai.onyx.training")[0];
  ctx.input_grads[0] = transposed(spread, back);
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Gather", gather_gradient);
}  // namespace onyx::training
