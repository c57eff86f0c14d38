// ai.onnx Attention (opsets 23, 24, 25; com.microsoft's Attention is ops/attention.cc). From
// Q, K, V (all 3-D [B, S, Hq*D], [B, L, Hkv*D], [B, L, Hkv*Dv] with the q_num_heads and
// kv_num_heads attributes, or all 4-D [B, Hq, S, D], [B, Hkv, L, D], [B, Hkv, L, Dv]) and the
// optional past_key [B, Hkv, P, D]:
//   Y                 Q's element type, [B, S, Hq*Dv] (3-D) or [B, Hq, S, Dv] (4-D);
//   present_key       Q's element type, [B, Hkv, P + L, D] (P = 0 without a past);
//   present_value     V's element type, [B, Hkv, P + L, Dv];
//   qk_matmul_output  Q's element type, [B, Hq, S, P + L].
// Dims not known at load stay unknown; the rule never fails.
#include <optional>

#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

// a + b, known when both are.
Dim dim_sum(const Dim& a, const Dim& b) {
  if (a.value && b.value) return known_dim(*a.value + *b.value);
  if (dim_is(b, 0)) return a;
  if (dim_is(a, 0)) return b;
  return Dim{};
}

Status infer_onnx_attention(InferenceContext& ctx) {
  const SymbolicShape q = ctx.input_shape(0), k = ctx.input_shape(1), v = ctx.input_shape(2);
  const SymbolicShape past = ctx.input_shape(4);
  const int64_t hq_attr = ctx.attr_int("q_num_heads", 0), hkv_attr = ctx.attr_int("kv_num_heads", 0);
  const auto rank_is = [](const SymbolicShape& s, size_t r) { return s.has_rank && s.dims.size() == r; };
  // The dims in 4-D terms: batch, q heads, q rows, kv heads, new keys, head size, value head size.
  Dim b, hq, s, hkv, len, d, dv;
  bool known = false;
  if (rank_is(q, 4) && rank_is(k, 4) && rank_is(v, 4)) {
    known = true;
    b = dim_merge(q.dims[0], k.dims[0]);
    hq = q.dims[1];
    s = q.dims[2];
    hkv = dim_merge(k.dims[1], v.dims[1]);
    len = dim_merge(k.dims[2], v.dims[2]);
    d = dim_merge(q.dims[3], k.dims[3]);
    dv = v.dims[3];
  } else if (rank_is(q, 3) && rank_is(k, 3) && rank_is(v, 3)) {
    known = true;
    b = dim_merge(q.dims[0], k.dims[0]);
    s = q.dims[1];
    len = dim_merge(k.dims[1], v.dims[1]);
    if (hq_attr > 0) hq = known_dim(hq_attr);
    if (hkv_attr > 0) {
      hkv = known_dim(hkv_attr);
      d = dim_divided(k.dims[2], hkv_attr);
      dv = dim_divided(v.dims[2], hkv_attr);
    }
  }
  Dim total = len;
  if (ctx.has_input(4)) total = rank_is(past, 4) ? dim_sum(past.dims[2], len) : Dim{};

  SymbolicShape y, present_k, present_v, qk;
  if (known) {
    if (rank_is(q, 4)) {
      y = unknown_dims(4);
      y.dims = {b, hq, s, dv};
    } else {
      y = unknown_dims(3);
      y.dims = {b, s, dv.value && hq.value ? known_dim(*hq.value * *dv.value) : Dim{}};
    }
    present_k = unknown_dims(4);
    present_k.dims = {b, hkv, total, d};
    present_v = unknown_dims(4);
    present_v.dims = {b, hkv, total, dv};
    qk = unknown_dims(4);
    qk.dims = {b, hq, s, total};
  }
  ctx.set_output(0, ctx.input_elem_type(0), y);
  if (ctx.num_outputs() > 1) ctx.set_output(1, ctx.input_elem_type(0), present_k);
  if (ctx.num_outputs() > 2) ctx.set_output(2, ctx.input_elem_type(2), present_v);
  if (ctx.num_outputs() > 3) ctx.set_output(3, ctx.input_elem_type(0), qk);
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Attention", 23, 1000, infer_onnx_attention);

}  // namespace onyx::ops
