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
// float32. The projection is one oneDNN matmul (constant weights packed once in prepare); each
// batch item's heads then take two oneDNN batched matmuls over strided views of the packed
// Q/K/V rows (onednn_head_products.h) around a row-by-row softmax.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "core/parallel.h"
#include "kernels/kernel.h"
#include "kernels/onednn_head_products.h"
#include "kernels/onednn_matmul.h"
#include "kernels/vector_math.h"

namespace onyx {
namespace {

constexpr int64_t kScoresBudget = int64_t(1) << 22;  // floats of scores per group of heads

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
    const int64_t h = hq / heads_, dh = hv / heads_;
    const float scale = has_scale_ ? scale_ : float(1.0 / std::sqrt(double(h)));
    ONYX_ASSIGN_OR_RETURN(MaskView mv, read_mask(mask, batch, seq));
    if (attn_bias &&
        (attn_bias->rank() != 4 || (attn_bias->dim(0) != 1 && attn_bias->dim(0) != batch) ||
         (attn_bias->dim(1) != 1 && attn_bias->dim(1) != heads_) || attn_bias->dim(2) != seq || attn_bias->dim(3) != seq))
      return invalid_argument("Attention: attention_bias ", attn_bias->describe(), " must be [", batch, " or 1, ",
                              heads_, " or 1, ", seq, ", ", seq, "]");
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, DataType::kFloat, {batch, seq, hv}));
    if (y->numel() == 0) return Status::Ok();

    // Q | K | V rows for every token.
    ONYX_ASSIGN_OR_RETURN(Tensor qkv, ctx.allocate_scratch(DataType::kFloat, {batch * seq, width}));
    onednn::MatMulShape shape{{batch * seq, x.dim(2)}, {x.dim(2), width}};
    ONYX_RETURN_IF_ERROR(projection_->run(shape, x.data<float>(), packed_ ? nullptr : w.data<float>(),
                                          bias ? bias->data<float>() : nullptr, qkv.data<float>()));

    const int64_t group = std::clamp<int64_t>(kScoresBudget / std::max<int64_t>(1, seq * seq), 1, heads_);
    ONYX_ASSIGN_OR_RETURN(Tensor scores, ctx.allocate_scratch(DataType::kFloat, {group, seq, seq}));
    float* pp = scores.data<float>();
    const float* ap = attn_bias ? attn_bias->data<float>() : nullptr;
    for (int64_t b = 0; b < batch; ++b) {
      const float* rows = qkv.data<float>() + b * seq * width;
      for (int64_t n0 = 0; n0 < heads_; n0 += group) {
        const int64_t count = std::min(group, heads_ - n0);
        ONYX_RETURN_IF_ERROR(
            head_products_.scores(rows + n0 * h, width, rows + hq + n0 * h, width, pp, count, seq, seq, h, scale));
        parallel_for(count * seq, std::max<int64_t>(1, 8192 / seq), [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            const int64_t n = n0 + r / seq, i = r % seq;
            float* row = pp + r * seq;
            for (int64_t j = 0; j < seq; ++j) {
              float add = mv.masked(b, i, j) ? mask_filter_ : 0.f;
              if (causal_ && j > i) add += mask_filter_;
              if (ap)
                add += ap[((attn_bias->dim(0) == 1 ? 0 : b) * attn_bias->dim(1) + (attn_bias->dim(1) == 1 ? 0 : n)) *
                              seq * seq + i * seq + j];
              row[j] += add;
            }
            vec::softmax_row(row, row, seq);
          }
        });
        ONYX_RETURN_IF_ERROR(head_products_.context(pp, rows + 2 * hq + n0 * dh, width,
                                                    y->data<float>() + b * seq * hv + n0 * dh, hv, count, seq, seq, dh));
      }
    }
    return Status::Ok();
  }

 private:
  // mask_index read as "is key j masked for query i of batch item b".
  struct MaskView {
    enum class Kind { kNone, kEnd, kEndStart, kRaw2, kRaw3 } kind = Kind::kNone;
    std::vector<int64_t> values;  // the mask as int64
    int64_t batch = 0, seq = 0;
    bool masked(int64_t b, int64_t i, int64_t j) const {
      switch (kind) {
        case Kind::kNone: return false;
        case Kind::kEnd: return j >= values[size_t(b)];
        case Kind::kEndStart: return j >= values[size_t(b)] || j < values[size_t(batch + b)];
        case Kind::kRaw2: return values[size_t(b * seq + j)] <= 0;
        case Kind::kRaw3: return values[size_t((b * seq + i) * seq + j)] <= 0;
      }
      return false;
    }
  };

  static Result<MaskView> read_mask(const Tensor* mask, int64_t batch, int64_t seq) {
    MaskView mv;
    mv.batch = batch;
    mv.seq = seq;
    if (!mask) return mv;
    if (mask->dtype() != DataType::kInt32 && mask->dtype() != DataType::kInt64)
      return invalid_argument("Attention: mask_index must be int32, got ", mask->describe());
    const Shape& s = mask->shape();
    if (s == Shape{batch}) mv.kind = MaskView::Kind::kEnd;
    else if (s == Shape{2 * batch}) mv.kind = MaskView::Kind::kEndStart;
    else if (s == Shape{batch, seq}) mv.kind = MaskView::Kind::kRaw2;
    else if (s == Shape{batch, seq, seq}) mv.kind = MaskView::Kind::kRaw3;
    else
      return not_implemented("Attention: mask_index ", mask->describe(), " (takes [", batch, "], [", 2 * batch, "], [",
                             batch, ", ", seq, "] or [", batch, ", ", seq, ", ", seq, "])");
    mv.values.resize(size_t(mask->numel()));
    for (int64_t k = 0; k < mask->numel(); ++k) mv.values[size_t(k)] = mask->get_int64(k);
    return mv;
  }

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
