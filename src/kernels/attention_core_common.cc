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

}  // namespace onyx
