// com.microsoft Attention (contrib op, since 1), the packed-QKV form ONNX Runtime's transformer
// optimiser writes for BERT-like models:
//   inputs:  input [B, S, Hin]; weights [Hin, hq + hk + hv]; bias [hq + hk + hv] (optional);
//            mask_index (optional, int32 or int64): [B] key lengths (right padding), [2B] end
//            then start positions (left padding), [B, T] or [B, S, T] raw masks (a key counts
//            where the value is > 0); past, past_sequence_length (must be absent);
//            attention_bias (optional, additive, [B or 1, N or 1, S, T]).
//   attributes: num_heads N (required); qkv_hidden_sizes [hq, hk, hv] (default the weights'
//            width in thirds; hq == hk); scale (default 1/sqrt(hq/N)); unidirectional
//            (key j > query i masked); mask_filter_value (default -10000, added for every
//            masked key, once per reason, as ONNX Runtime's CPU kernel does).
//   output:  [B, S, hv]: Q, K, V = input x weights + bias, split into N heads; per head
//            softmax(Q K^T * scale + mask + attention_bias) V, heads side by side. The present
//            output, past state, rotary embedding and shared buffers are refused by name.
// float32. The projection is one oneDNN matmul (constant weights packed once in prepare); the
// heads then run as packed_qkv_attention.h says.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/onednn_matmul.h"
#include "kernels/packed_qkv_attention.h"

namespace onyx {
namespace {

class AttentionKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    heads_ = info.attr_int("num_heads", 0);
    if (heads_ <= 0) return invalid_model("Attention: num_heads must be positive, got ", heads_);
    has_scale_ = info.has_attr("scale");
    scale_ = info.attr_float("scale", 0.f);
    mask_filter_ = info.attr_float("mask_filter_value", -10000.f);
    const int64_t uni = info.attr_int("unidirectional", 0);
    if (uni != 0 && uni != 1) return invalid_model("Attention: unidirectional must be 0 or 1, got ", uni);
    causal_ = uni == 1;
    sizes_ = info.attr_ints("qkv_hidden_sizes");
    if (!sizes_.empty() && (sizes_.size() != 3 || sizes_[0] != sizes_[1] || sizes_[0] <= 0 || sizes_[2] <= 0))
      return invalid_model("Attention: qkv_hidden_sizes must be three positive sizes with q == k");
    if (info.attr_int("do_rotary", 0) != 0) return not_implemented("Attention: do_rotary");
    if (info.attr_int("past_present_share_buffer", 0) != 0) return not_implemented("Attention: past_present_share_buffer");
    if (info.has_input(4) || info.has_input(6)) return not_implemented("Attention: past state (past, past_sequence_length)");
    for (int k = 1; k < info.num_outputs(); ++k)
      if (!info.node().outputs[size_t(k)].empty()) return not_implemented("Attention: the present output");
    const bool has_bias = info.has_input(2);
    projection_ = std::make_unique<onednn::MatMul>(onednn::MatMulEpilogue{.bias = has_bias});
    if (const Tensor* w = info.constant_input(1); w && w->dtype() == DataType::kFloat && w->rank() == 2) {
      auto packed = onednn::MatMul::pack_b(w->data<float>(), w->shape(), false, 128);
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
    const float scale = has_scale_ ? scale_ : float(1.0 / std::sqrt(double(h)));
    ONYX_ASSIGN_OR_RETURN(AttentionMask mv, AttentionMask::read(mask, batch, seq, "Attention"));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, DataType::kFloat, {batch, seq, hv}));
    if (y->numel() == 0) return Status::Ok();

    // Q | K | V rows for every token.
    ONYX_ASSIGN_OR_RETURN(Tensor qkv, ctx.allocate_scratch(DataType::kFloat, {batch * seq, width}));
    onednn::MatMulShape shape{{batch * seq, x.dim(2)}, {x.dim(2), width}};
    ONYX_RETURN_IF_ERROR(projection_->run(shape, x.data<float>(), packed_ ? nullptr : w.data<float>(),
                                          bias ? bias->data<float>() : nullptr, qkv.data<float>()));
    const PackedQkvAttention p{heads_, scale, mask_filter_, causal_};
    return run_packed_qkv_attention(ctx, head_products_, p, qkv.data<float>(), batch, seq, hq, hv, mv, attn_bias,
                                    y->data<float>(), "Attention");
  }

 private:
  std::unique_ptr<onednn::MatMul> projection_;
  onednn::HeadProducts head_products_;
  bool packed_ = false;
  int64_t heads_ = 0;
  std::vector<int64_t> sizes_;
  bool has_scale_ = false, causal_ = false;
  float scale_ = 0.f, mask_filter_ = -10000.f;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "Attention", 1, kLatestOpset, AttentionKernel);

}  // namespace onyx
