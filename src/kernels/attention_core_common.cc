#include "kernels/attention_core_common.h"

namespace onyx {

Result<AttentionCoreAttributes> AttentionCoreAttributes::read(const KernelInfo& info, const char* op) {
  AttentionCoreAttributes a;
  a.heads = info.attr_int("num_heads", 0);
  if (a.heads <= 0) return invalid_model(op, ": num_heads must be positive, got ", a.heads);
  if (!info.has_attr("scale")) return invalid_model(op, ": the scale attribute is required");
  a.scale = info.attr_float("scale", 1.f);
  return a;
}

Result<AttentionCoreDims> attention_core_dims(const char* op, const KernelContext& ctx, int first, int count,
                                              int64_t heads) {
  for (int i = first; i < first + count; ++i) {
    const Tensor& t = ctx.input(i);
    if (!t.defined()) return invalid_argument(op, ": input ", i, " must be a tensor");
    if (t.dtype() != DataType::kFloat) return not_implemented(op, " for ", t.describe(), " (float32 only)");
  }
  AttentionCoreDims d;
  if (count == 1) {
    const Tensor& qkv = ctx.input(first);
    if (qkv.rank() != 3 || qkv.dim(2) % (3 * heads) != 0)
      return invalid_argument(op, ": packed query | key | value ", qkv.describe(), " must be [B, S, 3*N*H] with N = ",
                              heads);
    d.packed = true;
    d.batch = qkv.dim(0);
    d.seq = d.len = qkv.dim(1);
    d.d = d.dv = qkv.dim(2) / 3;
    d.k_off = d.d;
    d.v_off = 2 * d.d;
    d.ldq = d.ldk = d.ldv = qkv.dim(2);
    d.q_batch = d.k_batch = d.v_batch = d.seq * qkv.dim(2);
  } else {
    const Tensor& q = ctx.input(first);
    const Tensor& k = ctx.input(first + 1);
    const Tensor& v = ctx.input(first + 2);
    if (q.rank() != 3 || k.rank() != 3 || v.rank() != 3 || k.dim(0) != q.dim(0) || v.dim(0) != q.dim(0) ||
        v.dim(1) != k.dim(1) || k.dim(2) != q.dim(2) || q.dim(2) % heads != 0 || v.dim(2) % heads != 0)
      return invalid_argument(op, ": query ", q.describe(), ", key ", k.describe(), " and value ", v.describe(),
                              " must be [B, S, N*H], [B, L, N*H] and [B, L, N*Hv] with N = ", heads);
    d.batch = q.dim(0);
    d.seq = q.dim(1);
    d.len = k.dim(1);
    d.d = q.dim(2);
    d.dv = v.dim(2);
    d.ldq = d.ldk = d.d;
    d.ldv = d.dv;
    d.q_batch = d.seq * d.d;
    d.k_batch = d.len * d.d;
    d.v_batch = d.len * d.dv;
  }
  d.h = d.d / heads;
  d.hv = d.dv / heads;
  return d;
}

Status check_attention_core_grad_inputs(const KernelInfo& info) {
  if (info.num_inputs() != 3 && info.num_inputs() != 5)
    return invalid_model("AttentionCoreGrad takes dY, query, key, value and probs, or dY, one packed input and "
                         "probs; got ", info.num_inputs(), " inputs");
  return Status::Ok();
}

Result<AttentionCoreGradTargets> attention_core_grad_targets(KernelContext& ctx, const AttentionCoreDims& d,
                                                             int64_t heads, bool packed) {
  const Tensor& dy = ctx.input(0);
  const Tensor& probs = ctx.input(packed ? 2 : 4);
  if (!dy.defined() || dy.dtype() != DataType::kFloat || dy.shape() != Shape{d.batch, d.seq, d.dv} ||
      !probs.defined() || probs.dtype() != DataType::kFloat || probs.shape() != Shape{d.batch, heads, d.seq, d.len})
    return invalid_argument("AttentionCoreGrad: dY ", dy.describe(), " and probs ", probs.describe(), " must be [",
                            d.batch, ", ", d.seq, ", ", d.dv, "] and [", d.batch, ", ", heads, ", ", d.seq, ", ",
                            d.len, "] float32 for these inputs");
  AttentionCoreGradTargets out;
  out.whole = d.batch > 0 && d.seq > 0 && d.len > 0 && d.h > 0 && d.hv > 0;
  auto output = [&](int i, const Shape& shape) {
    return out.whole ? ctx.allocate_output_uninitialized(i, DataType::kFloat, shape)
                     : ctx.allocate_output(i, DataType::kFloat, shape);
  };
  if (packed) {
    ONYX_ASSIGN_OR_RETURN(Tensor * t, output(0, ctx.input(1).shape()));
    out.dq = t->data<float>() + d.q_off;
    out.dk = t->data<float>() + d.k_off;
    out.dv = t->data<float>() + d.v_off;
  } else {
    ONYX_ASSIGN_OR_RETURN(Tensor * tq, output(0, ctx.input(1).shape()));
    ONYX_ASSIGN_OR_RETURN(Tensor * tk, output(1, ctx.input(2).shape()));
    ONYX_ASSIGN_OR_RETURN(Tensor * tv, output(2, ctx.input(3).shape()));
    out.dq = tq->data<float>();
    out.dk = tk->data<float>();
    out.dv = tv->data<float>();
  }
  return out;
}

}  // namespace onyx
