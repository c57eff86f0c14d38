// AttentionCore (ai.onyx.training): multi-head attention's core for training, from query
// [B, S, N*H], key [B, L, N*H] and value [B, L, N*Hv], or one packed [B, S, 3*N*H] input
// (query | key | value in each row; L = S, Hv = H), attribute num_heads = N: output 0 has the
// element type of input 0 and shape [B, S, N*Hv], output 1 (the softmax of the scaled scores,
// kept for the gradient) [B, N, S, L].
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_attention_core(InferenceContext& ctx) {
  const bool packed = !ctx.has_input(1);
  const SymbolicShape q = ctx.input_shape(0);
  const SymbolicShape k = packed ? q : ctx.input_shape(1), v = packed ? q : ctx.input_shape(2);
  SymbolicShape out, probs;
  if (q.has_rank && q.dims.size() == 3 && k.has_rank && k.dims.size() == 3 && v.has_rank && v.dims.size() == 3) {
    out = unknown_dims(3);
    out.dims[0] = q.dims[0];
    out.dims[1] = q.dims[1];
    if (!packed) out.dims[2] = v.dims[2];
    else if (q.dims[2].value && *q.dims[2].value % 3 == 0) out.dims[2] = Dim{*q.dims[2].value / 3, "", ""};
    probs = unknown_dims(4);
    probs.dims[0] = q.dims[0];
    if (const int64_t heads = ctx.attr_int("num_heads", 0); heads > 0) probs.dims[1] = Dim{heads, "", ""};
    probs.dims[2] = q.dims[1];
    probs.dims[3] = k.dims[1];
  }
  ctx.set_output(0, ctx.input_elem_type(0), out);
  ctx.set_output(1, ctx.input_elem_type(0), probs);
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.training", "AttentionCore", 1, 1000, infer_attention_core);

}  // namespace onyx::ops
