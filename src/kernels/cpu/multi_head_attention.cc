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
// float32. Each (batch, head) is one task of parallel_for: K_h is packed transposed, the
// scores tile computed 4 rows x 32 columns at a time in registers, softmax taken row by row,
// then P V_h computed the same way straight into the output.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/broadcast.h"
#include "kernels/kernel.h"
#include "kernels/target_clones.h"
#include "kernels/vector_math.h"

namespace onyx {
namespace {

constexpr int kRows = 4, kCols = 32;

// c[r][j] = sum_t a[r * lda + t] * b[t * ldb + j] (* scale) for r < rows, j < cols: a product
// of a rows x inner block of A by an inner x cols block of B. Full 4 x 32 tiles stay in
// registers; edges take the same loop with runtime bounds.
ONYX_TARGET_CLONES void matmul_rows(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc,
                                    int64_t rows, int64_t cols, int64_t inner, float scale) {
  int64_t r = 0;
  for (; r + kRows <= rows; r += kRows) {
    int64_t j = 0;
    for (; j + kCols <= cols; j += kCols) {
      float acc[kRows][kCols] = {};
      for (int64_t t = 0; t < inner; ++t) {
        const float* br = b + t * ldb + j;
        for (int i = 0; i < kRows; ++i) {
          const float av = a[(r + i) * lda + t];
          for (int q = 0; q < kCols; ++q) acc[i][q] += av * br[q];
        }
      }
      for (int i = 0; i < kRows; ++i)
        for (int q = 0; q < kCols; ++q) c[(r + i) * ldc + j + q] = acc[i][q] * scale;
    }
    for (; j < cols; ++j)
      for (int i = 0; i < kRows; ++i) {
        float s = 0;
        for (int64_t t = 0; t < inner; ++t) s += a[(r + i) * lda + t] * b[t * ldb + j];
        c[(r + i) * ldc + j] = s * scale;
      }
  }
  for (; r < rows; ++r) {
    float* cr = c + r * ldc;
    for (int64_t j = 0; j < cols; ++j) cr[j] = 0;
    for (int64_t t = 0; t < inner; ++t) {
      const float av = a[r * lda + t];
      const float* br = b + t * ldb;
      for (int64_t j = 0; j < cols; ++j) cr[j] += av * br[j];
    }
    for (int64_t j = 0; j < cols; ++j) cr[j] *= scale;
  }
}

class MultiHeadAttentionKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    heads_ = info.attr_int("num_heads", 0);
    if (heads_ <= 0) return invalid_model("MultiHeadAttention: num_heads must be positive, got ", heads_);
    has_scale_ = info.has_attr("scale");
    scale_ = info.attr_float("scale", 0.f);
    const int64_t unidirectional = info.attr_int("unidirectional", 0);
    if (unidirectional != 0 && unidirectional != 1)
      return invalid_model("MultiHeadAttention: unidirectional must be 0 or 1, got ", unidirectional);
    causal_ = unidirectional == 1;
    if (info.has_input(4)) return not_implemented("MultiHeadAttention: key_padding_mask");
    if (info.has_input(6) || info.has_input(7)) return not_implemented("MultiHeadAttention: past key/value");
    for (int k = 1; k < info.num_outputs(); ++k)
      if (!info.node().outputs[size_t(k)].empty()) return not_implemented("MultiHeadAttention: present key/value outputs");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    const Tensor* bias = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const Tensor* attn_bias = ctx.has_input(5) ? &ctx.input(5) : nullptr;
    if (q.rank() != 3 || k.rank() != 3 || v.rank() != 3)
      return not_implemented("MultiHeadAttention: query, key and value must be 3-D, got ", q.describe(), ", ",
                             k.describe(), ", ", v.describe());
    for (const Tensor* t : {&q, &k, &v, bias, attn_bias})
      if (t && t->dtype() != DataType::kFloat)
        return not_implemented("MultiHeadAttention: ", data_type_name(t->dtype()), " (float32 only)");
    const int64_t d = q.dim(2), len = k.dim(1), dv = v.dim(2);
    if (k.dim(2) != d || v.dim(1) != len)
      return invalid_argument("MultiHeadAttention: key ", k.describe(), " and value ", v.describe(),
                              " do not match query ", q.describe());
    if (d % heads_ != 0 || dv % heads_ != 0)
      return invalid_argument("MultiHeadAttention: num_heads ", heads_, " does not divide ", d, " and ", dv);
    if (bias && bias->numel() != 2 * d + dv)
      return invalid_argument("MultiHeadAttention: bias ", bias->describe(), " must have ", 2 * d + dv, " elements");
    const int64_t h = d / heads_, hv = dv / heads_;
    const float scale = has_scale_ ? scale_ : float(1.0 / std::sqrt(double(h)));
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
        if (len > 0) {
          matmul_rows(qh, ldq, kt.data(), len, scores.data(), len, seq, len, h, scale);
          for (int64_t s = 0; s < seq; ++s) {
            float* row = scores.data() + s * len;
            if (ap) {
              const float* br = ap + b * bstride[0] + n * bstride[1] + s * bstride[2];
              for (int64_t l = 0; l < len; ++l) row[l] += br[l * bstride[3]];
            }
            // Causal: keys [0, visible) take part, the rest weigh 0 (all alike when none is visible).
            const int64_t visible = causal_ ? std::clamp(s + len - seq + 1, int64_t(0), len) : len;
            if (visible == 0) {
              std::fill(row, row + len, 1.f / float(len));
              continue;
            }
            vec::softmax_row(row, row, visible);
            std::fill(row + visible, row + len, 0.f);
          }
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
        matmul_rows(scores.data(), len, vh, ldv, out + b * seq * dv + n * hv, dv, seq, hv, len, 1.f);
      }
    });
    return Status::Ok();
  }

 private:
  int64_t heads_ = 0;
  bool has_scale_ = false;
  bool causal_ = false;
  float scale_ = 0.f;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "MultiHeadAttention", 1, kLatestOpset, MultiHeadAttentionKernel);

}  // namespace onyx
