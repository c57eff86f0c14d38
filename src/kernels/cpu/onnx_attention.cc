// ai.onnx Attention (opsets 23, 24 and 25). The stem carries "onnx_" because attention.cc is
// com.microsoft's Attention, a different op of the same name.
//   inputs:  Q, K, V: all 3-D ([B, S, Hq*D], [B, L, Hkv*D], [B, L, Hkv*Dv], with the
//            q_num_heads and kv_num_heads attributes) or all 4-D ([B, Hq, S, D],
//            [B, Hkv, L, D], [B, Hkv, L, Dv]; head attributes, when given, must agree);
//            Hkv divides Hq (query head n reads key/value head n / (Hq / Hkv)).
//            attn_mask (optional): bool (false hides a key) or a float type (added to the
//            scores), broadcast right-aligned to [B, Hq, S, T] (rank 1 to 4), its last dim at
//            most T: keys past it are hidden.
//            past_key [B, Hkv, P, D], past_value [B, Hkv, P, Dv] (optional, both or neither).
//            nonpad_kv_seqlen (opset 24+, int64 [B], values in [0, T], not with a past): keys
//            at or past nonpad[b] are padding.
//   attributes: scale (1/sqrt(D)), is_causal (query s sees keys j <= s + offset, offset = P
//            with a past, nonpad[b] - S with nonpad_kv_seqlen, else 0), softcap (0: off),
//            qk_matmul_output_mode 0-3, softmax_precision (1, 10, 11 or 16), and at opset 25
//            left_window_size / right_window_size (-1: unbounded; query s sees keys
//            [s + offset - left, s + offset + right]).
//   outputs: Y [B, S, Hq*Dv] or [B, Hq, S, Dv] of Q's type; present_key / present_value
//            [B, Hkv, P + L, D or Dv] (past then new keys); qk_matmul_output [B, Hq, S, T] of
//            Q's type: mode 0 the scaled Q K^T, 1 after softcap, 2 plus the bias (-inf where
//            hidden), 3 the probabilities. A row that sees no key (every bias -inf) gives
//            zeros in Y and in mode 3.
// float32, float16 and bfloat16 compute in float32 (inputs converted once), double in double;
// the per-head work is onnx_attention_core (small_matmul blocks, vectorised rows, threads over
// (batch, head)). Anything else is refused by name.
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/convert.h"
#include "kernels/kernel.h"
#include "kernels/onnx_attention_core.h"

namespace onyx {
namespace {

bool is_attention_float(DataType t) {
  return t == DataType::kFloat || t == DataType::kFloat16 || t == DataType::kBFloat16 || t == DataType::kDouble;
}

class OnnxAttentionKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    has_q_heads_ = info.has_attr("q_num_heads");
    has_kv_heads_ = info.has_attr("kv_num_heads");
    q_heads_ = info.attr_int("q_num_heads", 0);
    kv_heads_ = info.attr_int("kv_num_heads", 0);
    if ((has_q_heads_ && q_heads_ <= 0) || (has_kv_heads_ && kv_heads_ <= 0))
      return invalid_model("Attention: q_num_heads (", q_heads_, ") and kv_num_heads (", kv_heads_,
                           ") must be positive");
    const int64_t causal = info.attr_int("is_causal", 0);
    if (causal != 0 && causal != 1) return invalid_model("Attention: is_causal must be 0 or 1, got ", causal);
    causal_ = causal == 1;
    has_scale_ = info.has_attr("scale");
    scale_ = info.attr_float("scale", 1.f);
    softcap_ = info.attr_float("softcap", 0.f);
    qk_mode_ = info.attr_int("qk_matmul_output_mode", 0);
    if (qk_mode_ < 0 || qk_mode_ > 3)
      return invalid_model("Attention: qk_matmul_output_mode must be 0, 1, 2 or 3, got ", qk_mode_);
    if (info.has_attr("softmax_precision")) {
      const int64_t p = info.attr_int("softmax_precision", 0);
      if (p != 1 && p != 10 && p != 11 && p != 16)
        return invalid_model("Attention: softmax_precision must be 1 (float), 10 (float16), 11 (double) or 16 "
                             "(bfloat16), got ", p);
      softmax_precision_ = int(p);
    }
    for (const char* name : {"left_window_size", "right_window_size"})
      if (info.has_attr(name) && info.opset() < 25)
        return invalid_model("Attention: ", name, " needs opset 25, the model has ", info.opset());
    left_ = info.attr_int("left_window_size", -1);
    right_ = info.attr_int("right_window_size", -1);
    if (left_ < -1 || right_ < -1)
      return invalid_model("Attention: left_window_size (", left_, ") and right_window_size (", right_,
                           ") must be -1 or nonnegative");
    if (info.has_input(6) && info.opset() < 24)
      return invalid_model("Attention: nonpad_kv_seqlen needs opset 24, the model has ", info.opset());
    if (info.has_input(4) != info.has_input(5))
      return invalid_model("Attention: past_key and past_value must be given together");
    if (info.has_input(6) && info.has_input(4))
      return invalid_model("Attention: nonpad_kv_seqlen cannot be used with past_key and past_value");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    for (int i = 0; i < 3; ++i)
      if (!ctx.has_input(i)) return invalid_argument("Attention: input ", i, " (Q, K, V) must be given");
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    const bool has_past = ctx.has_input(4) && ctx.has_input(5);
    for (int i : {0, 1, 2, 4, 5})
      if (ctx.has_input(i) && !is_attention_float(ctx.input(i).dtype()))
        return not_implemented("Attention: ", ctx.input(i).describe(), " (float32, float16, bfloat16 or double)");
    if (k.dtype() != q.dtype() || (has_past && (ctx.input(4).dtype() != q.dtype() || ctx.input(5).dtype() != v.dtype())))
      return invalid_argument("Attention: Q, K and past_key must share one element type, V and past_value another");
    const bool wide = q.dtype() == DataType::kDouble || v.dtype() == DataType::kDouble;
    return wide ? run<double>(ctx) : run<float>(ctx);
  }

 private:
  // `t` in the compute type: itself when it already is, else converted into scratch.
  template <typename Acc>
  static Result<Tensor> in_compute_type(KernelContext& ctx, const Tensor& t) {
    if (t.dtype() == data_type_of<Acc>) return t;
    ONYX_ASSIGN_OR_RETURN(Tensor c, ctx.allocate_scratch(data_type_of<Acc>, t.shape()));
    ONYX_RETURN_IF_ERROR(convert_elements(t, c));
    return c;
  }

  // Output `i` of type `dtype` from `acc` (same shape, compute type).
  template <typename Acc>
  static Status emit(KernelContext& ctx, int i, DataType dtype, const Tensor& acc) {
    ONYX_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(i, dtype, acc.shape()));
    if (dtype == data_type_of<Acc>) {
      if (acc.numel() > 0) std::memcpy(out->raw_data(), acc.raw_data(), acc.nbytes());
      return Status::Ok();
    }
    return convert_elements(acc, *out);
  }

  template <typename Acc>
  Status run(KernelContext& ctx) const {
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    const bool has_past = ctx.has_input(4) && ctx.has_input(5);
    const int64_t rank = q.rank();
    if ((rank != 3 && rank != 4) || k.rank() != rank || v.rank() != rank)
      return invalid_argument("Attention: Q ", q.describe(), ", K ", k.describe(), " and V ", v.describe(),
                              " must all be 3-D or all 4-D");
    OnnxAttentionProblem p;
    int64_t len = 0;  // L, the new keys
    if (rank == 3) {
      if (!has_q_heads_ || !has_kv_heads_)
        return invalid_model("Attention: 3-D Q, K and V need the q_num_heads and kv_num_heads attributes");
      p.q_heads = q_heads_;
      p.kv_heads = kv_heads_;
      if (q.dim(2) % q_heads_ != 0 || v.dim(2) % kv_heads_ != 0 || k.dim(2) != q.dim(2) / q_heads_ * kv_heads_)
        return invalid_argument("Attention: Q ", q.describe(), ", K ", k.describe(), " and V ", v.describe(),
                                " are not [B, S, ", q_heads_, " * D], [B, L, ", kv_heads_, " * D] and [B, L, ",
                                kv_heads_, " * Dv]");
      p.batch = q.dim(0);
      p.q_len = q.dim(1);
      len = k.dim(1);
      p.d = q.dim(2) / q_heads_;
      p.dv = v.dim(2) / kv_heads_;
    } else {
      p.batch = q.dim(0);
      p.q_heads = q.dim(1);
      p.q_len = q.dim(2);
      p.d = q.dim(3);
      p.kv_heads = k.dim(1);
      len = k.dim(2);
      p.dv = v.dim(3);
      if (v.dim(1) != p.kv_heads || k.dim(3) != p.d)
        return invalid_argument("Attention: Q ", q.describe(), ", K ", k.describe(), " and V ", v.describe(),
                                " are not [B, Hq, S, D], [B, Hkv, L, D] and [B, Hkv, L, Dv]");
      if ((has_q_heads_ && q_heads_ != p.q_heads) || (has_kv_heads_ && kv_heads_ != p.kv_heads))
        return invalid_argument("Attention: q_num_heads ", q_heads_, " / kv_num_heads ", kv_heads_,
                                " disagree with 4-D Q ", q.describe(), " and K ", k.describe());
    }
    if (k.dim(0) != p.batch || v.dim(0) != p.batch || v.dim(rank - 2) != len)
      return invalid_argument("Attention: K ", k.describe(), " and V ", v.describe(),
                              " must have Q's batch and one key length");
    if (p.kv_heads == 0 || p.q_heads % p.kv_heads != 0)
      return invalid_argument("Attention: the ", p.q_heads, " query heads are not a multiple of the ", p.kv_heads,
                              " key/value heads");
    int64_t past = 0;
    if (has_past) {
      const Tensor& pk = ctx.input(4);
      const Tensor& pv = ctx.input(5);
      past = pk.rank() == 4 ? pk.dim(2) : -1;
      if (pk.shape() != Shape{p.batch, p.kv_heads, past, p.d} || pv.shape() != Shape{p.batch, p.kv_heads, past, p.dv})
        return invalid_argument("Attention: past_key ", pk.describe(), " and past_value ", pv.describe(), " must be [",
                                p.batch, ", ", p.kv_heads, ", P, ", p.d, "] and [", p.batch, ", ", p.kv_heads, ", P, ",
                                p.dv, "]");
    }
    p.total = past + len;
    const int64_t B = p.batch, Hq = p.q_heads, Hkv = p.kv_heads, S = p.q_len, T = p.total, D = p.d, Dv = p.dv;
    p.causal = causal_;
    p.left = left_;
    p.right = right_;
    p.scale = has_scale_ ? double(scale_) : (D > 0 ? 1.0 / std::sqrt(double(D)) : 1.0);
    p.softcap = softcap_;
    p.qk_mode = int(qk_mode_);
    p.softmax_precision = softmax_precision_;
    p.offset.assign(size_t(B), past);
    p.valid.assign(size_t(B), T);
    if (ctx.has_input(6)) {
      const Tensor& nonpad = ctx.input(6);
      if (nonpad.dtype() != DataType::kInt64 || nonpad.shape() != Shape{B})
        return invalid_argument("Attention: nonpad_kv_seqlen ", nonpad.describe(), " must be int64 [", B, "]");
      for (int64_t b = 0; b < B; ++b) {
        const int64_t n = nonpad.data<int64_t>()[b];
        if (n < 0 || n > T)
          return invalid_argument("Attention: nonpad_kv_seqlen[", b, "] = ", n, " is outside [0, ", T, "]");
        p.valid[size_t(b)] = n;
        p.offset[size_t(b)] = n - S;
      }
    }

    // The mask, as an additive bias in the compute type, read through broadcast strides.
    Tensor mask;
    if (ctx.has_input(3)) {
      const Tensor& m = ctx.input(3);
      if (m.dtype() != DataType::kBool && !is_attention_float(m.dtype()))
        return not_implemented("Attention: attn_mask ", m.describe(), " (bool or a float type)");
      Shape ms = m.shape();
      if (ms.empty() || ms.size() > 4)
        return invalid_argument("Attention: attn_mask ", m.describe(), " must have rank 1 to 4");
      ms.insert(ms.begin(), 4 - ms.size(), 1);
      if ((ms[0] != 1 && ms[0] != B) || (ms[1] != 1 && ms[1] != Hq) || (ms[2] != 1 && ms[2] != S) || ms[3] > T)
        return invalid_argument("Attention: attn_mask ", m.describe(), " does not broadcast to [", B, ", ", Hq, ", ",
                                S, ", ", T, "] (its last dim may be shorter, not longer)");
      if (m.dtype() == DataType::kBool) {
        ONYX_ASSIGN_OR_RETURN(mask, ctx.allocate_scratch(data_type_of<Acc>, m.shape()));
        const bool* src = m.data<bool>();
        Acc* dst = mask.data<Acc>();
        for (int64_t i = 0; i < m.numel(); ++i) dst[i] = src[i] ? Acc(0) : -std::numeric_limits<Acc>::infinity();
      } else {
        ONYX_ASSIGN_OR_RETURN(mask, in_compute_type<Acc>(ctx, m));
      }
      p.has_mask = true;
      p.mask_len = ms[3];
      p.m_s = ms[2] == 1 ? 0 : ms[3];
      p.m_h = ms[1] == 1 ? 0 : ms[2] * ms[3];
      p.m_b = ms[0] == 1 ? 0 : ms[1] * ms[2] * ms[3];
    }

    // Q in the compute type, and its strides.
    ONYX_ASSIGN_OR_RETURN(const Tensor qc, in_compute_type<Acc>(ctx, q));
    if (rank == 4) p.q_b = Hq * S * D, p.q_n = S * D, p.q_s = D;
    else p.q_b = S * Hq * D, p.q_n = D, p.q_s = Hq * D;

    // The caches [B, Hkv, T, D or Dv] in the compute type: past rows, then the new keys.
    auto cache = [&](const Tensor& fresh, int past_input, int64_t width) -> Result<Tensor> {
      ONYX_ASSIGN_OR_RETURN(const Tensor fc, in_compute_type<Acc>(ctx, fresh));
      if (!has_past && rank == 4) return fc;
      Tensor pc;
      if (has_past) {
        ONYX_ASSIGN_OR_RETURN(pc, in_compute_type<Acc>(ctx, ctx.input(past_input)));
      }
      ONYX_ASSIGN_OR_RETURN(Tensor all, ctx.allocate_scratch(data_type_of<Acc>, {B, Hkv, T, width}));
      const size_t row = size_t(width) * sizeof(Acc);
      for (int64_t b = 0; b < B; ++b)
        for (int64_t g = 0; g < Hkv; ++g) {
          Acc* dst = all.data<Acc>() + (b * Hkv + g) * T * width;
          if (past > 0) std::memcpy(dst, pc.data<Acc>() + (b * Hkv + g) * past * width, size_t(past) * row);
          for (int64_t l = 0; l < len; ++l) {
            const Acc* src = rank == 4 ? fc.data<Acc>() + ((b * Hkv + g) * len + l) * width
                                       : fc.data<Acc>() + (b * len + l) * Hkv * width + g * width;
            if (width > 0) std::memcpy(dst + (past + l) * width, src, row);
          }
        }
      return all;
    };
    ONYX_ASSIGN_OR_RETURN(const Tensor k_all, cache(k, 4, D));
    ONYX_ASSIGN_OR_RETURN(const Tensor v_all, cache(v, 5, Dv));

    // Y and qk in the compute type: the outputs themselves when of that type, else scratch.
    const Shape y_shape = rank == 4 ? Shape{B, Hq, S, Dv} : Shape{B, S, Hq * Dv};
    if (rank == 4) p.y_b = Hq * S * Dv, p.y_n = S * Dv, p.y_s = Dv;
    else p.y_b = S * Hq * Dv, p.y_n = Dv, p.y_s = Hq * Dv;
    const bool y_direct = q.dtype() == data_type_of<Acc>;
    Tensor y_acc;
    if (y_direct) {
      ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, q.dtype(), y_shape));
      y_acc = *y;
    } else {
      ONYX_ASSIGN_OR_RETURN(y_acc, ctx.allocate_scratch(data_type_of<Acc>, y_shape, true));
    }
    Tensor qk_acc;
    const bool want_qk = ctx.output_requested(3);
    if (want_qk) {
      ONYX_ASSIGN_OR_RETURN(qk_acc, ctx.allocate_scratch(data_type_of<Acc>, {B, Hq, S, T}, true));
    }

    OnnxAttentionOperands<Acc> ops;
    ops.q = qc.data<Acc>();
    ops.k = k_all.data<Acc>();
    ops.v = v_all.data<Acc>();
    ops.mask = p.has_mask ? mask.data<Acc>() : nullptr;
    ops.y = y_acc.data<Acc>();
    ops.qk = want_qk ? qk_acc.data<Acc>() : nullptr;
    if (B * Hq * S > 0) onnx_attention_heads(p, ops);

    if (!y_direct) ONYX_RETURN_IF_ERROR(emit<Acc>(ctx, 0, q.dtype(), y_acc));
    if (ctx.output_requested(1)) ONYX_RETURN_IF_ERROR(emit<Acc>(ctx, 1, q.dtype(), k_all));
    if (ctx.output_requested(2)) ONYX_RETURN_IF_ERROR(emit<Acc>(ctx, 2, v.dtype(), v_all));
    if (want_qk) ONYX_RETURN_IF_ERROR(emit<Acc>(ctx, 3, q.dtype(), qk_acc));
    return Status::Ok();
  }

  bool has_q_heads_ = false, has_kv_heads_ = false, causal_ = false, has_scale_ = false;
  int64_t q_heads_ = 0, kv_heads_ = 0, qk_mode_ = 0, left_ = -1, right_ = -1;
  int softmax_precision_ = 0;
  float scale_ = 1.f, softcap_ = 0.f;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Attention", 23, kLatestOpset, OnnxAttentionKernel);

}  // namespace onyx
