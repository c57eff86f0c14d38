// com.microsoft MultiHeadAttention (contrib op, since 1), the separate Q/K/V form:
//   inputs:  query [B, S, D], key [B, L, D], value [B, L, Dv]; bias [D + D + Dv] (optional,
//            added to query, key and value); key_padding_mask (must be absent);
//            attention_bias (optional, additive, [B or 1, N or 1, S or 1, L or 1] — ONNX
//            Runtime documents [B or 1, N or 1, S, L]); past key/value (must be absent).
//            Batch dims of 1 broadcast, and a one-row query against a bias of S rows gives S
//            rows, as the unfused MatMul and Add would.
//   attributes: num_heads N (required, divides D and Dv); scale (default 1/sqrt(D/N));
//            unidirectional (causal: query row s of S sees keys l <= s + L - S of L, as with
//            a past of L - S keys; a row that sees none weighs every key alike, as a finite
//            fill like GPT-2's finfo.min would); mask_filter_value (unused without a padding
//            mask).
//   output:  [B, S, Dv] (the broadcast B and S): per head h, softmax(Q_h K_h^T * scale + bias_h) V_h, heads side by
//            side. The present key/value outputs are not produced.
// float32. Not causal and without broadcasting, each batch item takes two oneDNN batched
// matmuls over all heads (onednn_head_products.h: strided views, no per-head copies) around a
// row-by-row softmax; the Q/K/V bias, when given, is added into one copy of the item's rows
// first. Causal attention, and broadcast batch items or query rows, make each (batch, head) one
// task of parallel_for: K_h packed transposed, then per block of query rows (16 when causal,
// each against only the keys its last row sees; all rows otherwise) scores by small_matmul,
// softmax, and P V_h into the output. (GPT-2 small, 128 tokens, Zen 4, 1 thread: 8.2 ms of
// attention against 9.5 through oneDNN's per-block primitives, whose first run spent 45-58 ms
// making them.)
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/broadcast.h"
#include "kernels/kernel.h"
#include "kernels/multi_head_attention_common.h"
#include "kernels/onednn_head_products.h"
#include "kernels/small_matmul.h"
#include "kernels/target_clones.h"
#include "kernels/vector_math.h"

namespace onyx {
namespace {

// dst[r * cols + c] = src[r * cols + c] + bias[c] for r in [r0, r1).
ONYX_TARGET_CLONES void add_bias_to_rows(const float* src, const float* bias, float* dst, int64_t r0, int64_t r1,
                                         int64_t cols) {
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t c = 0; c < cols; ++c) dst[r * cols + c] = src[r * cols + c] + bias[c];
}

// add_bias_to_rows over all rows, in parallel.
void add_row_bias(const float* src, const float* bias, float* dst, int64_t rows, int64_t cols) {
  parallel_for(rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1)),
               [&](int64_t r0, int64_t r1) { add_bias_to_rows(src, bias, dst, r0, r1, cols); });
}

class MultiHeadAttentionKernel final : public Kernel {
  static constexpr int64_t kScoresBudget = int64_t(4) << 20;  // floats of scores per head group
  // Causal query rows go in blocks of this many, each against the keys its last row sees.
  static constexpr int64_t kSmallCausalRows = 16;

 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(attrs_, read_multi_head_attention(info, "MultiHeadAttention"));
    heads_ = attrs_.heads;
    causal_ = attrs_.causal;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    const Tensor* bias = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const Tensor* attn_bias = ctx.has_input(5) ? &ctx.input(5) : nullptr;
    ONYX_ASSIGN_OR_RETURN(const MultiHeadAttentionDims dims, multi_head_attention_dims(q, k, v, bias, attrs_));
    for (const Tensor* t : {&q, &k, &v, bias, attn_bias})
      if (t && t->dtype() != DataType::kFloat)
        return not_implemented("MultiHeadAttention: ", data_type_name(t->dtype()), " (float32 only)");
    const int64_t d = dims.d, len = dims.len, dv = dims.dv, h = dims.head, hv = dims.head_v;
    const float scale = dims.scale;
    // Batch and query rows broadcast as the unfused MatMul and Add would: query, key, value
    // and attention_bias may each have batch 1, and the bias may have more query rows than a
    // single-row query.
    Shape bias_shape = attn_bias ? attn_bias->shape() : Shape{};
    if (bias_shape.size() > 4)
      return invalid_argument("MultiHeadAttention: attention_bias ", attn_bias->describe(), " has rank above 4");
    bias_shape.insert(bias_shape.begin(), 4 - bias_shape.size(), 1);
    auto batch_r = broadcast_shapes({{q.dim(0)}, {k.dim(0)}, {v.dim(0)}, {bias_shape[0]}});
    auto seq_r = broadcast_shapes({{q.dim(1)}, {bias_shape[2]}});
    if (!batch_r.ok() || !seq_r.ok() || (bias_shape[1] != 1 && bias_shape[1] != heads_) ||
        (bias_shape[3] != 1 && bias_shape[3] != len))
      return invalid_argument("MultiHeadAttention: attention_bias ", attn_bias ? attn_bias->describe() : std::string("-"),
                              ", query ", q.describe(), ", key ", k.describe(), " and value ", v.describe(),
                              " do not broadcast to [batch, ", heads_, ", sequence, ", len, "]");
    const int64_t batch = (*batch_r)[0], seq = (*seq_r)[0], q_seq = q.dim(1);
    const Shape scores_shape = {batch, heads_, seq, len};
    const std::vector<int64_t> bstride = broadcast_strides(bias_shape, scores_shape);
    auto batch_of = [&](const Tensor& t, int64_t b) { return t.dim(0) == 1 ? 0 : b; };
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, DataType::kFloat, {batch, seq, dv}));
    if (y->numel() == 0) return Status::Ok();
    const float* qp = q.data<float>();
    const float* kp = k.data<float>();
    const float* vp = v.data<float>();
    const float* bp = bias ? bias->data<float>() : nullptr;
    const float* ap = attn_bias ? attn_bias->data<float>() : nullptr;
    float* out = y->data<float>();

    // Causal: query row s sees keys [0, visible_keys(s)).
    auto visible_keys = [&](int64_t s) { return causal_ ? std::clamp(s + len - seq + 1, int64_t(0), len) : len; };
    // Row s of head n in batch item b, holding Q K^T * scale for the first `width` keys
    // (visible_keys(s) <= width, and width == len where that is 0): adds the attention bias,
    // applies the causal mask and takes the softmax in place.
    auto finish_scores_row = [&](float* row, int64_t width, int64_t b, int64_t n, int64_t s) {
      if (ap) {
        const float* br = ap + b * bstride[0] + n * bstride[1] + s * bstride[2];
        for (int64_t l = 0; l < width; ++l) row[l] += br[l * bstride[3]];
      }
      // Keys [0, visible) take part, the rest weigh 0 (all alike when none is visible).
      const int64_t visible = visible_keys(s);
      if (visible == 0) {
        std::fill(row, row + width, 1.f / float(width));
        return;
      }
      vec::softmax_row(row, row, visible);
      std::fill(row + visible, row + width, 0.f);
    };

    // Not causal, no broadcasting: the heads of a batch item in groups, two oneDNN calls per
    // group over strided views, with the Q/K/V bias (when given) added into one copy of the
    // item's rows first. A group's scores stay within kScoresBudget floats (one head at least).
    if (!causal_ && q.dim(0) == batch && k.dim(0) == batch && v.dim(0) == batch && q_seq == seq && len > 0 && h > 0 &&
        hv > 0) {
      const int64_t group = std::clamp<int64_t>(kScoresBudget / (seq * len), 1, heads_);
      ONYX_ASSIGN_OR_RETURN(Tensor scores, ctx.allocate_scratch(DataType::kFloat, {group, seq, len}));
      Tensor biased;
      if (bp) {
        ONYX_ASSIGN_OR_RETURN(biased, ctx.allocate_scratch(DataType::kFloat, {seq * d + len * d + len * dv}));
      }
      float* pp = scores.data<float>();
      for (int64_t b = 0; b < batch; ++b) {
        const float* qb = qp + b * seq * d;
        const float* kb = kp + b * len * d;
        const float* vb = vp + b * len * dv;
        if (bp) {
          float* qc = biased.data<float>();
          float* kc = qc + seq * d;
          float* vc = kc + len * d;
          add_row_bias(qb, bp, qc, seq, d);
          add_row_bias(kb, bp + d, kc, len, d);
          add_row_bias(vb, bp + 2 * d, vc, len, dv);
          qb = qc, kb = kc, vb = vc;
        }
        for (int64_t n0 = 0; n0 < heads_; n0 += group) {
          const int64_t count = std::min(group, heads_ - n0);
          ONYX_RETURN_IF_ERROR(head_products_.scores(qb + n0 * h, d, kb + n0 * h, d, pp, count, seq, len, h, scale));
          parallel_for(count * seq, std::max<int64_t>(1, 8192 / len), [&](int64_t r0, int64_t r1) {
            for (int64_t r = r0; r < r1; ++r) finish_scores_row(pp + r * len, len, b, n0 + r / seq, r % seq);
          });
          ONYX_RETURN_IF_ERROR(
              head_products_.context(pp, vb + n0 * hv, dv, out + b * seq * dv + n0 * hv, dv, count, seq, len, hv));
        }
      }
      return Status::Ok();
    }

    // Causal attention, or broadcast batch items or query rows: one (batch, head) per task, with
    // small_matmul (no oneDNN primitive per block shape: its first run took 45-58 ms of JIT).
    parallel_for(batch * heads_, 1, [&](int64_t t0, int64_t t1) {
      std::vector<float> kt(size_t(h * len)), scores(size_t(seq * len)), qb, vb;
      for (int64_t task = t0; task < t1; ++task) {
        const int64_t b = task / heads_, n = task % heads_;
        // K_h transposed: kt[j][l] = key[b, l, n*h + j] (+ bias).
        for (int64_t l = 0; l < len; ++l) {
          const float* kr = kp + (batch_of(k, b) * len + l) * d + n * h;
          for (int64_t j = 0; j < h; ++j) kt[size_t(j * len + l)] = kr[j] + (bp ? bp[d + n * h + j] : 0.f);
        }
        const float* qh = qp + batch_of(q, b) * q_seq * d + n * h;
        int64_t ldq = d;
        if (bp || q_seq != seq) {  // query rows (repeated when broadcast) with their bias, contiguous
          qb.resize(size_t(seq * h));
          for (int64_t s = 0; s < seq; ++s)
            for (int64_t j = 0; j < h; ++j)
              qb[size_t(s * h + j)] = qh[(q_seq == 1 ? 0 : s) * d + j] + (bp ? bp[n * h + j] : 0.f);
          qh = qb.data();
          ldq = h;
        }
        const float* vh = vp + batch_of(v, b) * len * dv + n * hv;
        int64_t ldv = dv;
        if (bp) {
          vb.resize(size_t(len * hv));
          for (int64_t l = 0; l < len; ++l)
            for (int64_t j = 0; j < hv; ++j) vb[size_t(l * hv + j)] = vh[l * dv + j] + bp[2 * d + n * hv + j];
          vh = vb.data();
          ldv = hv;
        }
        if (len == 0) {  // no keys: nothing to weigh
          for (int64_t r = 0; r < seq; ++r) std::fill_n(out + (b * seq + r) * dv + n * hv, hv, 0.f);
          continue;
        }
        // Causal rows in blocks of kSmallCausalRows, each against the keys its last row sees
        // (all of them where its first row sees none); one block of every row otherwise.
        const int64_t block = causal_ ? kSmallCausalRows : seq;
        for (int64_t s0 = 0; s0 < seq; s0 += block) {
          const int64_t rows = std::min(block, seq - s0);
          const int64_t width = visible_keys(s0) == 0 ? len : visible_keys(s0 + rows - 1);
          small_matmul(qh + s0 * ldq, ldq, kt.data(), len, scores.data(), width, rows, width, h, scale);
          for (int64_t r = 0; r < rows; ++r) finish_scores_row(scores.data() + r * width, width, b, n, s0 + r);
          small_matmul(scores.data(), width, vh, ldv, out + (b * seq + s0) * dv + n * hv, dv, rows, hv, width, 1.f);
        }
      }
    });
    return Status::Ok();
  }

 private:
  onednn::HeadProducts head_products_;
  AttentionAttributes attrs_;
  int64_t heads_ = 0;
  bool causal_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "MultiHeadAttention", 1, kLatestOpset, MultiHeadAttentionKernel);

}  // namespace onyx
