// What the attention kernels share: the head attributes of Attention, QAttention and
// MultiHeadAttention, and for the CPU and CUDA MultiHeadAttention kernels the inputs they
// refuse and the checks of query, key, value and bias dims (the separate Q/K/V form).
#pragma once
#include <cmath>
#include <string>

#include "kernels/kernel.h"

namespace onyx {

// The head attributes the com.microsoft attention ops (Attention, QAttention,
// MultiHeadAttention) share.
struct AttentionAttributes {
  int64_t heads = 0;
  bool has_scale = false;
  float scale = 0.f;
  bool causal = false;
  // The scale attribute, or 1/sqrt(head size) without one.
  float scale_for(int64_t head) const { return has_scale ? scale : float(1.0 / std::sqrt(double(head))); }
};

// num_heads (required, positive), scale, unidirectional (0 or 1); `op` names the op in errors.
inline Result<AttentionAttributes> read_attention_attributes(const KernelInfo& info, const std::string& op) {
  AttentionAttributes a;
  a.heads = info.attr_int("num_heads", 0);
  if (a.heads <= 0) return invalid_model(op, ": num_heads must be positive, got ", a.heads);
  a.has_scale = info.has_attr("scale");
  a.scale = info.attr_float("scale", 0.f);
  const int64_t unidirectional = info.attr_int("unidirectional", 0);
  if (unidirectional != 0 && unidirectional != 1)
    return invalid_model(op, ": unidirectional must be 0 or 1, got ", unidirectional);
  a.causal = unidirectional == 1;
  return a;
}

// MultiHeadAttention's attributes. `who` names the kernel in errors ("MultiHeadAttention",
// "CUDA MultiHeadAttention"); key_padding_mask, past key/value and the present outputs are
// NOT_IMPLEMENTED.
inline Result<AttentionAttributes> read_multi_head_attention(const KernelInfo& info, const std::string& who) {
  ONYX_ASSIGN_OR_RETURN(AttentionAttributes a, read_attention_attributes(info, "MultiHeadAttention"));
  if (info.has_input(4)) return not_implemented(who, ": key_padding_mask");
  if (info.has_input(6) || info.has_input(7)) return not_implemented(who, ": past key/value");
  for (int k = 1; k < info.num_outputs(); ++k)
    if (!info.node().outputs[size_t(k)].empty()) return not_implemented(who, ": present key/value outputs");
  return a;
}

struct MultiHeadAttentionDims {
  int64_t d = 0, len = 0, dv = 0;  // query/key width, key length, value width
  int64_t head = 0, head_v = 0;    // per head
  float scale = 0.f;               // the attribute, or 1/sqrt(head)
};

// Query, key and value 3-D (NOT_IMPLEMENTED otherwise), their widths and key length agreeing,
// num_heads dividing the widths, the bias (when given) of D + D + Dv elements.
inline Result<MultiHeadAttentionDims> multi_head_attention_dims(const Tensor& q, const Tensor& k, const Tensor& v,
                                                                const Tensor* bias,
                                                                const AttentionAttributes& a) {
  if (q.rank() != 3 || k.rank() != 3 || v.rank() != 3)
    return not_implemented("MultiHeadAttention: query, key and value must be 3-D, got ", q.describe(), ", ",
                           k.describe(), ", ", v.describe());
  MultiHeadAttentionDims r;
  r.d = q.dim(2);
  r.len = k.dim(1);
  r.dv = v.dim(2);
  if (k.dim(2) != r.d || v.dim(1) != r.len)
    return invalid_argument("MultiHeadAttention: key ", k.describe(), " and value ", v.describe(),
                            " do not match query ", q.describe());
  if (r.d % a.heads != 0 || r.dv % a.heads != 0)
    return invalid_argument("MultiHeadAttention: num_heads ", a.heads, " does not divide ", r.d, " and ", r.dv);
  if (bias && bias->numel() != 2 * r.d + r.dv)
    return invalid_argument("MultiHeadAttention: bias ", bias->describe(), " must have ", 2 * r.d + r.dv, " elements");
  r.head = r.d / a.heads;
  r.head_v = r.dv / a.heads;
  r.scale = a.scale_for(r.head);
  return r;
}

}  // namespace onyx
