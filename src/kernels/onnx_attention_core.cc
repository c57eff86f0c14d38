#include "kernels/onnx_attention_core.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/data_type.h"
#include "core/parallel.h"
#include "kernels/small_matmul.h"
#include "kernels/vector_math.h"

namespace onyx {
namespace {

// From this many query rows a (batch, head) pair takes blocks of this many rows through
// small_matmul (float only); fewer rows, or double, go row by row.
constexpr int64_t kBlockRows = 16;

template <typename Acc>
constexpr Acc kMinusInf = -std::numeric_limits<Acc>::infinity();

// c[r * ldc + j] = scale * sum_t a[r * lda + t] * b[t * ldb + j], r < rows, j < cols.
void block_product(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t rows,
                   int64_t cols, int64_t inner, double scale) {
  if (inner == 0) {
    for (int64_t r = 0; r < rows; ++r) std::fill_n(c + r * ldc, cols, 0.f);
    return;
  }
  small_matmul(a, lda, b, ldb, c, ldc, rows, cols, inner, float(scale));
}

// out[j] = scale * q . k[j * d ..], j < keys.
void row_scores(const float* q, const float* k, int64_t keys, int64_t d, double scale, float* out) {
  if (d == 0) {
    std::fill_n(out, keys, 0.f);
    return;
  }
  vec::row_dots(q, k, keys, d, d, out);
  const float s = float(scale);
  for (int64_t j = 0; j < keys; ++j) out[j] *= s;
}
void row_scores(const double* q, const double* k, int64_t keys, int64_t d, double scale, double* out) {
  for (int64_t j = 0; j < keys; ++j) {
    double sum = 0;
    for (int64_t i = 0; i < d; ++i) sum += q[i] * k[j * d + i];
    out[j] = sum * scale;
  }
}

// out[i] = sum_j p[j] * v[j * dv + i], i < dv.
void row_context(const float* p, const float* v, int64_t keys, int64_t dv, float* out) {
  if (keys == 0) {
    std::fill_n(out, dv, 0.f);
    return;
  }
  vec::weighted_row_sum(p, v, keys, dv, dv, out);
}
void row_context(const double* p, const double* v, int64_t keys, int64_t dv, double* out) {
  for (int64_t i = 0; i < dv; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < keys; ++j) sum += p[j] * v[j * dv + i];
    out[i] = sum;
  }
}

// v rounded to the ONNX float type `precision` (1 float, 10 float16, 16 bfloat16; else v).
double round_to(double v, int precision) {
  switch (precision) {
    case 1: return double(float(v));
    case 10: return double(float(Float16(float(v))));
    case 16: return double(float(BFloat16(float(v))));
    default: return v;
  }
}

// Softmax of x[0, n) in place, in the compute type's precision (precision 0) or in the ONNX type
// `precision`: the row rounded to that type, exponentials summed in double, the results rounded
// to it. A row whose maximum is -inf (no key seen) becomes zeros.
template <typename Acc>
void softmax_in_place(Acc* x, int64_t n, int precision) {
  Acc m = kMinusInf<Acc>;
  for (int64_t j = 0; j < n; ++j)
    if (x[j] > m) m = x[j];
  if (m == kMinusInf<Acc>) {
    std::fill_n(x, n, Acc(0));
    return;
  }
  if constexpr (std::is_same_v<Acc, float>) {
    if (precision == 0 || precision == 1) {
      vec::softmax_row(x, x, n);
      return;
    }
  }
  if (precision == 0) precision = 11;  // double's own
  const double shift = round_to(double(m), precision);
  double sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    const double e = std::exp(round_to(double(x[j]), precision) - shift);
    x[j] = Acc(e);
    sum += e;
  }
  for (int64_t j = 0; j < n; ++j) x[j] = Acc(round_to(double(x[j]) / sum, precision));
}

// Keys [lo, hi) of batch item b that row s may see structurally (causal, window, padding,
// the mask's length); empty when hi <= lo.
struct KeyRange {
  int64_t lo = 0, hi = 0;
};
KeyRange visible_keys(const OnnxAttentionProblem& p, int64_t b, int64_t s) {
  const int64_t pos = s + p.offset[size_t(b)];
  int64_t hi = std::min(p.total, p.valid[size_t(b)]);
  if (p.has_mask) hi = std::min(hi, p.mask_len);
  if (p.causal) hi = std::min(hi, pos + 1);
  if (p.right >= 0) hi = std::min(hi, pos + p.right + 1);
  const int64_t lo = p.left >= 0 ? std::max<int64_t>(0, pos - p.left) : 0;
  return {lo, hi};
}

// Row s of head n in batch item b holds x for keys [klo, klo + w): softcap, bias, softmax (or
// zeros when no key is seen), writing qk's row (keys [0, T), then klo = 0) at the mode's stage.
template <typename Acc>
void finish_row(const OnnxAttentionProblem& p, const OnnxAttentionOperands<Acc>& ops, Acc* x, int64_t klo, int64_t w,
                int64_t b, int64_t n, int64_t s) {
  Acc* qk = ops.qk ? ops.qk + ((b * p.q_heads + n) * p.q_len + s) * p.total : nullptr;
  if (qk && p.qk_mode == 0) std::copy_n(x, w, qk);
  if (p.softcap > 0) {
    const Acc cap = Acc(p.softcap);
    for (int64_t j = 0; j < w; ++j) x[j] = cap * std::tanh(x[j] / cap);
  }
  if (qk && p.qk_mode == 1) std::copy_n(x, w, qk);
  // Keys [lo, hi) of the block's [klo, klo + w) are seen; the others take a bias of -inf.
  const KeyRange r = visible_keys(p, b, s);
  const int64_t lo = std::clamp(r.lo, klo, klo + w) - klo, hi = std::clamp(r.hi, klo, klo + w) - klo;
  bool any = hi > lo;
  if (ops.mask && any) {
    const Acc* mrow = ops.mask + b * p.m_b + n * p.m_h + s * p.m_s + klo;
    int seen = 0;
    for (int64_t j = lo; j < hi; ++j) {
      x[j] += mrow[j];
      seen |= int(mrow[j] != kMinusInf<Acc>);
    }
    any = seen != 0;
  }
  if (qk && p.qk_mode == 2) {
    std::fill_n(qk, w, kMinusInf<Acc>);
    if (hi > lo) std::copy(x + lo, x + hi, qk + lo);
  }
  std::fill(x, x + std::max<int64_t>(lo, 0), Acc(0));
  if (hi > lo) std::fill(x + hi, x + w, Acc(0));
  if (any) softmax_in_place(x + lo, hi - lo, p.softmax_precision);
  else std::fill_n(x, w, Acc(0));
  if (qk && p.qk_mode == 3) std::copy_n(x, w, qk);
}

}  // namespace

template <typename Acc>
void onnx_attention_heads(const OnnxAttentionProblem& p, const OnnxAttentionOperands<Acc>& ops) {
  const int64_t group = p.q_heads / p.kv_heads, S = p.q_len, T = p.total, D = p.d, Dv = p.dv;
  const bool blocks = std::is_same_v<Acc, float> && S >= kBlockRows;
  parallel_for(p.batch * p.q_heads, 1, [&](int64_t t0, int64_t t1) {
    std::vector<Acc> kt(blocks ? size_t(D * T) : 0), scores(size_t((blocks ? kBlockRows : 1) * std::max<int64_t>(T, 1)));
    for (int64_t task = t0; task < t1; ++task) {
      const int64_t b = task / p.q_heads, n = task % p.q_heads, g = n / group;
      const Acc* qh = ops.q + b * p.q_b + n * p.q_n;
      const Acc* kh = ops.k + (b * p.kv_heads + g) * T * D;
      const Acc* vh = ops.v + (b * p.kv_heads + g) * T * Dv;
      Acc* yh = ops.y + b * p.y_b + n * p.y_n;
      if (blocks)  // K_h transposed: kt[i * T + j] = k[j, i]
        for (int64_t j = 0; j < T; ++j)
          for (int64_t i = 0; i < D; ++i) kt[size_t(i * T + j)] = kh[j * D + i];
      const int64_t step = blocks ? kBlockRows : 1;
      for (int64_t s0 = 0; s0 < S; s0 += step) {
        const int64_t rows = std::min(step, S - s0);
        // The keys any row of the block sees (every key when qk is asked for).
        int64_t klo = T, khi = 0;
        for (int64_t r = 0; r < rows; ++r) {
          const KeyRange kr = visible_keys(p, b, s0 + r);
          if (kr.hi > kr.lo) klo = std::min(klo, kr.lo), khi = std::max(khi, kr.hi);
        }
        if (ops.qk) klo = 0, khi = T;
        if (khi <= klo) continue;  // no key seen: Y's rows stay zero
        const int64_t w = khi - klo;
        Acc* sc = scores.data();
        if constexpr (std::is_same_v<Acc, float>) {
          if (blocks) block_product(qh + s0 * p.q_s, p.q_s, kt.data() + klo, T, sc, w, rows, w, D, p.scale);
          else row_scores(qh + s0 * p.q_s, kh + klo * D, w, D, p.scale, sc);
        } else {
          row_scores(qh + s0 * p.q_s, kh + klo * D, w, D, p.scale, sc);
        }
        for (int64_t r = 0; r < rows; ++r) finish_row(p, ops, sc + r * w, klo, w, b, n, s0 + r);
        if constexpr (std::is_same_v<Acc, float>) {
          if (blocks) {
            block_product(sc, w, vh + klo * Dv, Dv, yh + s0 * p.y_s, p.y_s, rows, Dv, w, 1.0);
            continue;
          }
        }
        row_context(sc, vh + klo * Dv, w, Dv, yh + s0 * p.y_s);
      }
    }
  });
}

template void onnx_attention_heads<float>(const OnnxAttentionProblem&, const OnnxAttentionOperands<float>&);
template void onnx_attention_heads<double>(const OnnxAttentionProblem&, const OnnxAttentionOperands<double>&);

}  // namespace onyx
