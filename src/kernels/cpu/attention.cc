// com.microsoft Attention (contrib op, since 1), the packed-QKV form ONNX Runtime's transformer
// optimiser writes for BERT-like models:
//   inputs:  input [B, S, Hin]; weights [Hin, hq + hk + hv]; bias [hq + hk + hv] (optional);
//            mask_index (optional, int32 or int64): [B] key lengths (right padding), [2B] end
//            then start positions (left padding), [B, T] or [B, S, T] raw masks (a key counts
//            where the value is > 0; T = P + S keys with a past); past (optional,
//            [2, B, N, P, H], keys then values: hq == hk == hv); attention_bias (optional,
//            additive, [B or 1, N or 1, S, T]); past_sequence_length (must be absent).
//   attributes: num_heads N (required); qkv_hidden_sizes [hq, hk, hv] (default the weights'
//            width in thirds; hq == hk); scale (default 1/sqrt(hq/N)); unidirectional
//            (key j > query i masked); mask_filter_value (default -10000, added for every
//            masked key, once per reason, as ONNX Runtime's CPU kernel does).
//   output:  [B, S, hv]: Q, K, V = input x weights + bias, split into N heads; the keys and
//            values are the past's followed by the new ones; per head softmax(Q K^T * scale +
//            mask + attention_bias) V, heads side by side; unidirectional masks key j for query
//            i when j > P + i. present (optional): [2, B, N, T, H], the keys and values used.
//            Rotary embedding and shared past/present buffers are refused by name.
// float32. The projection is one oneDNN matmul (constant weights packed once in prepare); without
// past or present the heads run as packed_qkv_attention.h says; with them, one task per (batch,
// head, query) over the gathered keys and values.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "core/parallel.h"
#include "kernels/kernel.h"
#include "kernels/onednn_matmul.h"
#include "kernels/multi_head_attention_common.h"
#include "kernels/packed_qkv_attention.h"
#include "kernels/vector_math.h"

namespace onyx {
namespace {

class AttentionKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(attrs_, read_attention_attributes(info, "Attention"));
    heads_ = attrs_.heads;
    causal_ = attrs_.causal;
    mask_filter_ = info.attr_float("mask_filter_value", -10000.f);
    sizes_ = info.attr_ints("qkv_hidden_sizes");
    if (!sizes_.empty() && (sizes_.size() != 3 || sizes_[0] != sizes_[1] || sizes_[0] <= 0 || sizes_[2] <= 0))
      return invalid_model("Attention: qkv_hidden_sizes must be three positive sizes with q == k");
    if (info.attr_int("do_rotary", 0) != 0) return not_implemented("Attention: do_rotary");
    if (info.attr_int("past_present_share_buffer", 0) != 0) return not_implemented("Attention: past_present_share_buffer");
    if (info.has_input(6)) return not_implemented("Attention: past_sequence_length (shared past/present buffers)");
    with_state_ = info.has_input(4) || (info.num_outputs() > 1 && !info.node().outputs[1].empty());
    const bool has_bias = info.has_input(2);
    projection_ = std::make_unique<onednn::MatMul>(onednn::MatMulEpilogue{.bias = has_bias});
    if (const Tensor* w = info.constant_input(1); w && w->dtype() == DataType::kFloat && w->rank() == 2) {
      auto packed = onednn::MatMul::pack_constant_b(*w, false, 128);
      if (packed.ok()) {
        projection_->use_packed_b(*packed);
        packed_ = true;
      }
    }
    return Status::Ok();
  }

  std::vector<int> released_constant_inputs() const override { return packed_ ? std::vector<int>{1} : std::vector<int>{}; }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    const Tensor* mask = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const Tensor* attn_bias = ctx.has_input(5) ? &ctx.input(5) : nullptr;
    for (const Tensor* t : {&x, &w, bias, attn_bias})
      if (t && t->dtype() != DataType::kFloat)
        return not_implemented("Attention: ", data_type_name(t->dtype()), " (float32 only)");
    if (x.rank() != 3 || w.rank() != 2 || w.dim(0) != x.dim(2))
      return invalid_argument("Attention: input ", x.describe(), " and weights ", w.describe(),
                              " must be [B, S, Hin] and [Hin, hq + hk + hv]");
    const int64_t batch = x.dim(0), seq = x.dim(1), width = w.dim(1);
    int64_t hq = width / 3, hv = width / 3;
    if (!sizes_.empty()) {
      hq = sizes_[0];
      hv = sizes_[2];
    }
    if (2 * hq + hv != width || (sizes_.empty() && width % 3 != 0))
      return invalid_argument("Attention: weights ", w.describe(), " do not hold q, k and v of sizes ", hq, ", ", hq,
                              ", ", hv);
    if (hq % heads_ != 0 || hv % heads_ != 0)
      return invalid_argument("Attention: num_heads ", heads_, " does not divide ", hq, " and ", hv);
    if (bias && bias->numel() != width)
      return invalid_argument("Attention: bias ", bias->describe(), " must have ", width, " elements");
    const int64_t h = hq / heads_;
    const float scale = attrs_.scale_for(h);
    const Tensor* past = ctx.has_input(4) ? &ctx.input(4) : nullptr;
    int64_t past_len = 0;
    if (past) {
      if (past->dtype() != DataType::kFloat || past->rank() != 5 || past->dim(0) != 2 || past->dim(1) != batch ||
          past->dim(2) != heads_ || past->dim(4) != h || hq != hv)
        return invalid_argument("Attention: past ", past->describe(), " must be float32 [2, ", batch, ", ", heads_,
                                ", past, ", h, "] with equal q, k and v sizes");
      past_len = past->dim(3);
    }
    if (with_state_ && hq != hv)
      return invalid_argument("Attention: past and present need equal q, k and v sizes, got ", hq, " and ", hv);
    const int64_t keys = past_len + seq;
    ONYX_ASSIGN_OR_RETURN(AttentionMask mv, AttentionMask::read(mask, batch, seq, keys, "Attention"));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, DataType::kFloat, {batch, seq, hv}));
    if (y->numel() == 0) return Status::Ok();

    // Q | K | V rows for every token.
    ONYX_ASSIGN_OR_RETURN(Tensor qkv, ctx.allocate_scratch(DataType::kFloat, {batch * seq, width}));
    onednn::MatMulShape shape{{batch * seq, x.dim(2)}, {x.dim(2), width}};
    ONYX_RETURN_IF_ERROR(projection_->run(shape, x.data<float>(), packed_ ? nullptr : w.data<float>(),
                                          bias ? bias->data<float>() : nullptr, qkv.data<float>()));
    const PackedQkvAttention p{heads_, scale, mask_filter_, causal_};
    if (!with_state_)
      return run_packed_qkv_attention(ctx, head_products_, p, qkv.data<float>(), batch, seq, hq, hv, mv, attn_bias,
                                      y->data<float>(), "Attention");
    return run_with_state(ctx, p, qkv.data<float>(), past, batch, seq, past_len, h, mv, attn_bias, *y);
  }

 private:
  // With past and/or present: keys and values gathered into present [2, B, N, T, H] (the output,
  // or scratch), then per (batch, head, query) the scores over the T keys, masked, softmax, and
  // the weighted values.
  Status run_with_state(KernelContext& ctx, const PackedQkvAttention& p, const float* qkv, const Tensor* past,
                        int64_t batch, int64_t seq, int64_t past_len, int64_t h, const AttentionMask& mask,
                        const Tensor* attn_bias, Tensor& y) const {
    const int64_t keys = past_len + seq, hidden = heads_ * h, width = 3 * hidden;
    if (attn_bias && (attn_bias->rank() != 4 || (attn_bias->dim(0) != 1 && attn_bias->dim(0) != batch) ||
                      (attn_bias->dim(1) != 1 && attn_bias->dim(1) != heads_) || attn_bias->dim(2) != seq ||
                      attn_bias->dim(3) != keys))
      return invalid_argument("Attention: attention_bias ", attn_bias->describe(), " must be [", batch, " or 1, ",
                              heads_, " or 1, ", seq, ", ", keys, "]");
    const Shape present_shape{2, batch, heads_, keys, h};
    Tensor scratch;
    Tensor* present = nullptr;
    if (ctx.output_requested(1)) {
      ONYX_ASSIGN_OR_RETURN(present, ctx.allocate_output_uninitialized(1, DataType::kFloat, present_shape));
    } else {
      ONYX_ASSIGN_OR_RETURN(scratch, ctx.allocate_scratch(DataType::kFloat, present_shape));
      present = &scratch;
    }
    float* pr = present->data<float>();
    for (int64_t kv = 0; kv < 2; ++kv)
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t n = 0; n < heads_; ++n) {
          float* dst = pr + ((kv * batch + b) * heads_ + n) * keys * h;
          if (past_len > 0)
            std::memcpy(dst, past->data<float>() + ((kv * batch + b) * heads_ + n) * past_len * h,
                        size_t(past_len * h) * sizeof(float));
          for (int64_t s = 0; s < seq; ++s)
            std::memcpy(dst + (past_len + s) * h, qkv + (b * seq + s) * width + (1 + kv) * hidden + n * h,
                        size_t(h) * sizeof(float));
        }
    const float* ap = attn_bias ? attn_bias->data<float>() : nullptr;
    parallel_for(batch * heads_ * seq, 1, [&](int64_t t0, int64_t t1) {
      std::vector<float> x(static_cast<size_t>(keys));
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t b = t / (heads_ * seq), n = (t / seq) % heads_, i = t % seq;
        const float* q = qkv + (b * seq + i) * width + n * h;
        const float* kc = pr + ((0 * batch + b) * heads_ + n) * keys * h;
        const float* vc = pr + ((1 * batch + b) * heads_ + n) * keys * h;
        const float* brow = ap ? ap + (((attn_bias->dim(0) == 1 ? 0 : b) * attn_bias->dim(1) +
                                        (attn_bias->dim(1) == 1 ? 0 : n)) * seq + i) * keys
                               : nullptr;
        for (int64_t j = 0; j < keys; ++j) {
          float dot = 0.f;
          for (int64_t e = 0; e < h; ++e) dot += q[e] * kc[j * h + e];
          float v = dot * p.scale + (mask.masked(b, i, j) ? p.mask_filter_value : 0.f);
          if (p.causal && j > past_len + i) v += p.mask_filter_value;
          if (brow) v += brow[j];
          x[size_t(j)] = v;
        }
        vec::softmax_row(x.data(), x.data(), keys);
        float* out = y.data<float>() + (b * seq + i) * hidden + n * h;
        std::fill(out, out + h, 0.f);
        for (int64_t j = 0; j < keys; ++j)
          for (int64_t e = 0; e < h; ++e) out[e] += x[size_t(j)] * vc[j * h + e];
      }
    });
    return Status::Ok();
  }

  std::unique_ptr<onednn::MatMul> projection_;
  onednn::HeadProducts head_products_;
  bool packed_ = false, with_state_ = false;
  int64_t heads_ = 0;
  std::vector<int64_t> sizes_;
  AttentionAttributes attrs_;
  bool causal_ = false;
  float mask_filter_ = -10000.f;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "Attention", 1, kLatestOpset, AttentionKernel);

}  // namespace onyx
