// com.microsoft GroupQueryAttention: output (B, S, num_heads * H) of query's element type, H
// the head size (query's width over num_heads, or over num_heads + 2 kv_num_heads when Q, K
// and V come packed); present_key and present_value (B, kv_num_heads, ?, H).
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_group_query_attention(InferenceContext& ctx) {
  const SymbolicShape q = ctx.input_shape(0);
  const int64_t nq = ctx.attr_int("num_heads", 0), nkv = ctx.attr_int("kv_num_heads", 0);
  const bool packed = !ctx.has_input(1) && !ctx.has_input(2);
  SymbolicShape out = unknown_dims(3);
  std::optional<int64_t> head;
  if (q.has_rank && q.dims.size() == 3) {
    out.dims[0] = q.dims[0];
    out.dims[1] = q.dims[1];
    const int64_t parts = packed ? nq + 2 * nkv : nq;
    if (q.dims[2].value && parts > 0 && *q.dims[2].value % parts == 0) head = *q.dims[2].value / parts;
  }
  if (head) out.dims[2] = known_dim(nq * *head);
  const DataType elem = ctx.input_elem_type(0);
  ctx.set_output(0, elem, std::move(out));
  for (int k = 1; k < ctx.num_outputs() && k < 3; ++k) {
    SymbolicShape cache = unknown_dims(4);
    if (q.has_rank && q.dims.size() == 3) cache.dims[0] = q.dims[0];
    if (nkv > 0) cache.dims[1] = known_dim(nkv);
    if (head) cache.dims[3] = known_dim(*head);
    ctx.set_output(k, elem, std::move(cache));
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_OP_RULE("com.microsoft", "GroupQueryAttention", 1, 1000, infer_group_query_attention);
}  // namespace onyx::ops
