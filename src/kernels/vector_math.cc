#include "kernels/vector_math.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "kernels/avx512_math.h"
#include "kernels/target_clones.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ONYX_VEC_AVX512 1
#endif

namespace onyx::vec {
namespace {

constexpr float kExpHi = 88.7228391f;   // ln(FLT_MAX)
constexpr float kExpLo = -87.3365448f;  // ln(FLT_MIN)
constexpr int kLanes = 16;              // partial sums / maxima kept apart so they vectorise

// exp(x) written so that GCC vectorises it: no calls, selects instead of branches.
inline float exp_one(float x) {
  // NaN clamps to kExpLo (std::max returns its first argument when unordered), so the
  // conversion to int below always sees a finite value; the NaN is restored at the end.
  const float xc = std::min(kExpHi, std::max(kExpLo, x));
  // Round to nearest by the 1.5 * 2^23 trick (exact for |v| < 2^22).
  const float n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const float r = xc - n * 0.693359375f + n * 2.12194440e-4f;  // ln 2 in two parts
  const float r2 = r * r;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r2 + r + 1.0f;
  // 2^n as two factors, each a normal float, so n in [-126, 128] needs no special case.
  const int32_t ni = int32_t(n);
  const int32_t n1 = ni >> 1, n2 = ni - n1;
  float y = p * std::bit_cast<float>((n1 + 127) << 23) * std::bit_cast<float>((n2 + 127) << 23);
  y = x < kExpLo ? 0.0f : y;
  y = x > kExpHi ? std::numeric_limits<float>::infinity() : y;
  y = x != x ? x : y;
  return y;
}

ONYX_TARGET_CLONES float row_max(const float* x, int64_t n) {
  float acc[kLanes];
  // NaN seen, per lane, as an integer mask (a bool reduction kept GCC from vectorising).
  uint32_t nan[kLanes] = {};
  for (int j = 0; j < kLanes; ++j) acc[j] = -std::numeric_limits<float>::infinity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    // Kept a loop (GCC's -O3 full unrolling would leave it scalar), so that it vectorises.
#pragma GCC unroll 1
    for (int j = 0; j < kLanes; ++j) {
      const float v = x[i + j];
      acc[j] = std::max(acc[j], v);  // a NaN v leaves acc: the mask reports it
      nan[j] |= v != v ? 1u : 0u;
    }
  float m = -std::numeric_limits<float>::infinity();
  uint32_t any_nan = 0;
  for (int j = 0; j < kLanes; ++j) {
    m = acc[j] > m ? acc[j] : m;
    any_nan |= nan[j];
  }
  for (; i < n; ++i) {
    m = x[i] > m ? x[i] : m;
    any_nan |= x[i] != x[i] ? 1u : 0u;
  }
  return any_nan ? std::numeric_limits<float>::quiet_NaN() : m;
}

// y = exp(x - shift); returns the sum of y.
ONYX_TARGET_CLONES float exp_shifted_sum(const float* x, float* y, int64_t n, float shift) {
  float acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      const float e = exp_one(x[i + j] - shift);
      y[i + j] = e;
      acc[j] += e;
    }
  float sum = 0.0f;
  for (; i < n; ++i) {
    y[i] = exp_one(x[i] - shift);
    sum += y[i];
  }
  for (int j = 0; j < kLanes; ++j) sum += acc[j];
  return sum;
}

// sum of exp(x - shift), nothing stored.
ONYX_TARGET_CLONES float exp_shifted_sum_only(const float* x, int64_t n, float shift) {
  float acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) acc[j] += exp_one(x[i + j] - shift);
  float sum = 0.0f;
  for (; i < n; ++i) sum += exp_one(x[i] - shift);
  for (int j = 0; j < kLanes; ++j) sum += acc[j];
  return sum;
}

ONYX_TARGET_CLONES void scale(float* y, int64_t n, float s) {
  for (int64_t i = 0; i < n; ++i) y[i] *= s;
}

ONYX_TARGET_CLONES void shift_into(const float* x, float* y, int64_t n, float s1, float s2) {
  for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - s1) - s2;
}

ONYX_TARGET_CLONES void exp_loop(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = exp_one(x[i]);
}

}  // namespace

void exp(const float* x, float* y, int64_t n) { exp_loop(x, y, n); }

ONYX_TARGET_CLONES void softmax_grad_row(const float* dy, const float* y, float* dx, int64_t n, float scale) {
  float acc[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int k = 0; k < kLanes; ++k) acc[k] += dy[j + k] * y[j + k];
  double dot = 0;
  for (int k = 0; k < kLanes; ++k) dot += acc[k];
  for (; j < n; ++j) dot += double(dy[j]) * y[j];
  const float d = float(dot);
  for (int64_t i = 0; i < n; ++i) dx[i] = y[i] * (dy[i] - d) * scale;
}

ONYX_TARGET_CLONES float dot(const float* a, const float* b, int64_t n) {
  float part[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
#pragma GCC unroll 1
    for (int l = 0; l < kLanes; ++l) part[l] += a[i + l] * b[i + l];
  float sum = 0.f;
  for (int l = 0; l < kLanes; ++l) sum += part[l];
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

#ifdef ONYX_VEC_AVX512
namespace {
bool avx512_here() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}

// Two chains of 16 lanes per row, whole vectors only (no masked loads: the tail is scalar).
__attribute__((target("avx512f,fma"))) void row_dots_avx512(const float* q, const float* m, int64_t rows, int64_t ld,
                                                            int64_t n, float* out) {
  const int64_t full = n / 16 * 16;
  for (int64_t j = 0; j < rows; ++j) {
    const float* row = m + j * ld;
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= full; i += 32) {
      a0 = _mm512_fmadd_ps(_mm512_loadu_ps(q + i), _mm512_loadu_ps(row + i), a0);
      a1 = _mm512_fmadd_ps(_mm512_loadu_ps(q + i + 16), _mm512_loadu_ps(row + i + 16), a1);
    }
    if (i < full) a0 = _mm512_fmadd_ps(_mm512_loadu_ps(q + i), _mm512_loadu_ps(row + i), a0);
    float sum = _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
    for (i = full; i < n; ++i) sum += q[i] * row[i];
    out[j] = sum;
  }
}
}  // namespace
#endif

void row_dots(const float* q, const float* m, int64_t rows, int64_t ld, int64_t n, float* out) {
#ifdef ONYX_VEC_AVX512
  if (avx512_here()) return row_dots_avx512(q, m, rows, ld, n, out);
#endif
  for (int64_t j = 0; j < rows; ++j) out[j] = dot(q, m + j * ld, n);
}

ONYX_TARGET_CLONES void weighted_row_sum(const float* __restrict w, const float* __restrict m, int64_t rows, int64_t ld, int64_t n,
                                         float* __restrict out) {
  for (int64_t i = 0; i < n; ++i) out[i] = 0.f;
  for (int64_t j = 0; j < rows; ++j) {
    const float wj = w[j];
    const float* row = m + j * ld;
    for (int64_t i = 0; i < n; ++i) out[i] += wj * row[i];
  }
}

#if ONYX_HAVE_AVX512
namespace {
// softmax_row's finite case on 16 lanes: the maximum and a NaN flag in one pass, then
// exp(x - max) stored and summed, then scaled. Returns false (nothing written) where the
// maximum is not finite, for softmax_row's definition-following path.
ONYX_AVX512 bool softmax_row_avx512(const float* x, float* y, int64_t n) {
  const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  __m512 mx = minus_inf;
  __mmask16 nan = 0;
  avx512::for_each_vector(n, [&](int64_t i, __mmask16 k) ONYX_AVX512 {
    const __m512 v = _mm512_mask_loadu_ps(minus_inf, k, x + i);
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    mx = _mm512_max_ps(mx, v);
  });
  const float m = _mm512_reduce_max_ps(mx);
  if (nan || m == std::numeric_limits<float>::infinity() || m == -std::numeric_limits<float>::infinity()) return false;
  const __m512 shift = _mm512_set1_ps(m);
  __m512 acc = _mm512_setzero_ps();
  avx512::for_each_vector(n, [&](int64_t i, __mmask16 k) ONYX_AVX512 {
    const __m512 e = avx512::exp_nonpositive(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), shift));
    _mm512_mask_storeu_ps(y + i, k, e);
    acc = _mm512_mask_add_ps(acc, k, acc, e);
  });
  const __m512 inv = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(acc));
  avx512::for_each_vector(n, [&](int64_t i, __mmask16 k) ONYX_AVX512 {
    _mm512_mask_storeu_ps(y + i, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, y + i), inv));
  });
  return true;
}
}  // namespace
#endif

void softmax_row(const float* x, float* y, int64_t n) {
#if ONYX_HAVE_AVX512
  if (avx512::available() && softmax_row_avx512(x, y, n)) return;
#endif
  const float m = row_max(x, n);
  if (m != m || m == std::numeric_limits<float>::infinity() || m == -std::numeric_limits<float>::infinity()) {
    // NaN, +inf (inf - inf) or all -inf: follow the definition in double, element by element.
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += std::exp(double(x[i]) - double(m));
    for (int64_t i = 0; i < n; ++i) y[i] = float(std::exp(double(x[i]) - double(m)) / sum);
    return;
  }
  const float sum = exp_shifted_sum(x, y, n, m);
  scale(y, n, 1.0f / sum);
}

void log_softmax_row(const float* x, float* y, int64_t n) {
  const float m = row_max(x, n);
  if (m != m || m == std::numeric_limits<float>::infinity() || m == -std::numeric_limits<float>::infinity()) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += std::exp(double(x[i]) - double(m));
    const double log_sum = std::log(sum);
    for (int64_t i = 0; i < n; ++i) y[i] = float(double(x[i]) - double(m) - log_sum);
    return;
  }
  const float log_sum = std::log(exp_shifted_sum_only(x, n, m));
  shift_into(x, y, n, m, log_sum);
}

}  // namespace onyx::vec
