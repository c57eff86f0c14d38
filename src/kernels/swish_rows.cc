#include "kernels/swish_rows.h"

#include <cmath>

#include "kernels/avx512_math.h"
#include "kernels/target_clones.h"

namespace onyx {
namespace {

// x * sigmoid(alpha * x), and its limit 0 where alpha * x is -inf (not inf * 0 = NaN).
inline float swish_value(float x, float alpha) {
  return alpha * x == -INFINITY ? 0.f : x / (1.f + std::exp(-alpha * x));
}

ONYX_TARGET_CLONES void swish_portable(const float* a, const float* b, float* y, int64_t n, float alpha) {
  if (b) {
    for (int64_t i = 0; i < n; ++i) y[i] = swish_value(a[i], alpha) * b[i];
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = swish_value(a[i], alpha);
  }
}

#if ONYX_HAVE_AVX512
ONYX_AVX512 void swish_avx512(const float* a, const float* b, float* y, int64_t n, float alpha) {
  const __m512 neg_alpha = _mm512_set1_ps(-alpha), one = _mm512_set1_ps(1.f), pos_inf = _mm512_set1_ps(INFINITY);
  avx512::for_each_vector(n, [&](int64_t i, __mmask16 m) ONYX_AVX512 {
    const __m512 x = _mm512_maskz_loadu_ps(m, a + i);
    const __m512 e = avx512::exp_clamped(_mm512_mul_ps(neg_alpha, x));
    __m512 v = _mm512_div_ps(x, _mm512_add_ps(one, e));
    // the limit 0 where -alpha * x is +inf (x * sigmoid underflowing, not inf * 0)
    v = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(_mm512_mul_ps(neg_alpha, x), pos_inf, _CMP_EQ_OQ), v,
                             _mm512_setzero_ps());
    if (b) v = _mm512_mul_ps(v, _mm512_maskz_loadu_ps(m, b + i));
    _mm512_mask_storeu_ps(y + i, m, v);
  });
}
#endif

}  // namespace

void swish_row(const float* a, const float* b, float* y, int64_t n, float alpha) {
#if ONYX_HAVE_AVX512
  if (avx512::available()) return swish_avx512(a, b, y, n, alpha);
#endif
  swish_portable(a, b, y, n, alpha);
}

}  // namespace onyx
