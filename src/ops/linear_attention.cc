// LinearAttention (ai.onnx, since 27): output (B, T, H_q * d_v) of query's type and
// present_state (B, H_kv, d_k, d_v) of past_state's type (query's when past_state is
// omitted), with d_k = query.shape[2] / q_num_heads and d_v = value.shape[2] / kv_num_heads.
// Dims that cannot be told stay unknown.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
// dim / heads when dim is known and a whole multiple; unknown otherwise.
Dim per_head(const Dim& dim, int64_t heads) {
  if (!dim.value || heads <= 0 || *dim.value % heads != 0) return Dim{};
  return Dim{*dim.value / heads, "", ""};
}

Status infer_linear_attention(InferenceContext& ctx) {
  const int64_t q_heads = ctx.attr_int("q_num_heads", 0), kv_heads = ctx.attr_int("kv_num_heads", 0);
  const SymbolicShape q = ctx.input_shape(0), v = ctx.input_shape(2);
  const bool q3 = q.has_rank && q.dims.size() == 3, v3 = v.has_rank && v.dims.size() == 3;
  const Dim batch = q3 ? q.dims[0] : Dim{}, tokens = q3 ? q.dims[1] : Dim{};
  const Dim dk = q3 ? per_head(q.dims[2], q_heads) : Dim{};
  const Dim dv = v3 ? per_head(v.dims[2], kv_heads) : Dim{};
  SymbolicShape out = unknown_dims(3);
  out.dims[0] = batch;
  out.dims[1] = tokens;
  if (dv.value && q_heads > 0) out.dims[2] = Dim{*dv.value * q_heads, "", ""};
  ctx.set_output(0, ctx.input_elem_type(0), out);
  if (ctx.num_outputs() < 2) return Status::Ok();
  SymbolicShape state = unknown_dims(4);
  state.dims[0] = batch;
  if (kv_heads > 0) state.dims[1] = Dim{kv_heads, "", ""};
  state.dims[2] = dk;
  state.dims[3] = dv;
  ctx.set_output(1, ctx.has_input(3) ? ctx.input_elem_type(3) : ctx.input_elem_type(0), state);
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "LinearAttention", 27, 1000, infer_linear_attention);
}  // namespace onyx::ops
