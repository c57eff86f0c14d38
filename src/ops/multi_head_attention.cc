// com.microsoft MultiHeadAttention (separate query, key, value): output 0 has the query's
// element type and shape [B, S, value dim 2], B the broadcast of the batch dims of query, key,
// value and attention_bias, S that of the query's rows and the bias's rows (as the kernel
// broadcasts them). The present key/value outputs are left unknown.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
// Dim `i` of `s` (counted from the end when `from_end`) as a 1-D shape; [1] when s is shorter.
SymbolicShape dim_of(const SymbolicShape& s, size_t i, bool from_end) {
  SymbolicShape out;
  out.has_rank = true;
  if (i < s.dims.size())
    out.dims.push_back(s.dims[from_end ? s.dims.size() - 1 - i : i]);
  else
    out.dims.push_back(Dim{1, "", ""});
  return out;
}

Status infer_multi_head_attention(InferenceContext& ctx) {
  const SymbolicShape q = ctx.input_shape(0), k = ctx.input_shape(1), v = ctx.input_shape(2);
  SymbolicShape out;
  if (q.has_rank && q.dims.size() == 3 && k.has_rank && k.dims.size() == 3 && v.has_rank && v.dims.size() == 3) {
    std::vector<SymbolicShape> batch = {dim_of(q, 0, false), dim_of(k, 0, false), dim_of(v, 0, false)};
    std::vector<SymbolicShape> rows = {dim_of(q, 1, false)};
    if (ctx.has_input(5)) {
      const SymbolicShape b = ctx.input_shape(5);
      batch.push_back(b.has_rank ? dim_of(b, 3, true) : SymbolicShape{});
      rows.push_back(b.has_rank ? dim_of(b, 1, true) : SymbolicShape{});
    }
    auto bd = broadcast_symbolic(batch);
    auto sd = broadcast_symbolic(rows);
    out = unknown_dims(3);
    if (bd.ok() && bd->has_rank) out.dims[0] = bd->dims[0];
    if (sd.ok() && sd->has_rank) out.dims[1] = sd->dims[0];
    out.dims[2] = v.dims[2];
  }
  ctx.set_output(0, ctx.input_elem_type(0), out);
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("com.microsoft", "MultiHeadAttention", 1, 1000, infer_multi_head_attention);

}  // namespace onyx::ops
