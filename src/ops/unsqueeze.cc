// Unsqueeze: input 0's element type; size-1 dims inserted at the listed axes of the output
// ('axes' attribute before opset 13, constant input 1 from 13). Non-constant axes of known
// count still give the rank.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_unsqueeze(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape in = ctx.input_shape(0);
  std::optional<std::vector<int64_t>> axes;
  if (ctx.opset() >= 13) axes = constant_ints(ctx, 1);
  else if (ctx.has_attr("axes")) axes = ctx.attr_ints("axes");
  if (!in.has_rank) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  if (!axes) {
    std::optional<int64_t> n = ctx.opset() >= 13 ? known_length(ctx, 1) : std::nullopt;
    ctx.set_output(0, elem, n ? unknown_dims(int64_t(in.dims.size()) + *n) : SymbolicShape{});
    return Status::Ok();
  }
  const int64_t rank = int64_t(in.dims.size() + axes->size());
  if (rank > kMaxStaticRank) {  // unknown_dims(rank) would have no dims to fill
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  if (!normalize_axes(*axes, rank)) return invalid_model("Unsqueeze: axes out of range or repeated for output rank ", rank);
  std::vector<bool> inserted(size_t(rank), false);
  for (int64_t a : *axes) inserted[size_t(a)] = true;
  SymbolicShape out = unknown_dims(rank);
  for (size_t d = 0, src = 0; d < size_t(rank); ++d) out.dims[d] = inserted[d] ? known_dim(1) : in.dims[src++];
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Unsqueeze", 1, 1000, infer_unsqueeze);

}  // namespace onyx::ops
