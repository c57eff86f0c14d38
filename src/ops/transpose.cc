// Transpose: input 0's element type; dims permuted by 'perm' (default: reversed).
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_transpose(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape in = ctx.input_shape(0);
  const bool has_perm = ctx.has_attr("perm");
  std::vector<int64_t> perm = ctx.attr_ints("perm");
  if (!in.has_rank) {
    ctx.set_output(0, elem, has_perm ? unknown_dims(int64_t(perm.size())) : SymbolicShape{});
    return Status::Ok();
  }
  const int64_t rank = int64_t(in.dims.size());
  if (rank > kMaxStaticRank) {  // unknown_dims(rank) would have no dims to fill
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  if (!has_perm)
    for (int64_t d = rank - 1; d >= 0; --d) perm.push_back(d);
  if (int64_t(perm.size()) != rank || !normalize_axes(perm, rank))
    return invalid_model("Transpose: perm is not a permutation of ", rank, " dims");
  SymbolicShape out = unknown_dims(rank);
  for (size_t d = 0; d < perm.size(); ++d) out.dims[d] = in.dims[size_t(perm[d])];
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Transpose", 1, 1000, infer_transpose);

}  // namespace onyx::ops
