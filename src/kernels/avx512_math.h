// Sixteen-lane float32 building blocks for the elementwise and row kernels (Gelu and its
// gradient, Softmax): exp, erf and tanh written with AVX-512 intrinsics, so their cost is
// fixed by the code rather than by what the vectoriser makes of a scalar loop.
//
// Use: a function marked ONYX_AVX512 may call these; callers check avx512::available() and
// keep a portable loop for other CPUs. Loops go through for_each_vector. ONYX_HAVE_AVX512 is 0 where the compiler cannot
// build them (then nothing here exists).
//
// Accuracy (float32):
//   exp_clamped: relative error about 1 ulp on [-87.3, 88.7]; 0 below -87.34 (where the true
//     value is a denormal), +inf above 88.72; NaN in gives NaN. The same reduction and
//     polynomial as vector_math.cc's scalar loop.
//   erf: absolute error below 1e-7 (gelu_common.h's rational function, clamped to [-4, 4]).
//   tanh: absolute error below 3e-7 (gelu_common.h's rational function).
//   Unlike the scalar forms, erf, tanh and exp_nonpositive turn a NaN into a finite value (the
//   clamps keep their bound); their callers multiply by x, which brings the NaN back.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ONYX_HAVE_AVX512 1
#include <immintrin.h>

#include <cstdint>
#include <cstdlib>
#include <string_view>

#define ONYX_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,fma")))

namespace onyx::avx512 {

// True where the CPU runs AVX-512 F, DQ, BW and VL (x86-64-v4), unless the environment
// variable ONYX_AVX512 is "0" when first asked (tests use it to run the portable loops).
inline bool available() {
  static const bool yes = [] {
    const char* v = std::getenv("ONYX_AVX512");
    if (v && std::string_view(v) == "0") return false;
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  }();
  return yes;
}

// The mask of the first n lanes (n in [0, 16]).
inline __mmask16 first_lanes(int64_t n) { return n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1u); }

// Calls body(i, mask) for i = 0, 16, 32, ... below n: the whole vectors with an all-ones mask
// that is a constant, so the masked intrinsics in an inlined body compile to plain loads and
// stores (masked stores are slow on some CPUs), then the tail, if any, with its mask. A
// lambda body needs ONYX_AVX512 after its parameters.
template <class Body>
ONYX_AVX512 inline void for_each_vector(int64_t n, Body&& body) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) body(i, __mmask16(0xFFFF));
  if (i < n) body(i, first_lanes(n - i));
}

ONYX_AVX512 inline __m512 polynomial7(__m512 r, __m512 r2) {
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  return _mm512_add_ps(_mm512_fmadd_ps(p, r2, r), _mm512_set1_ps(1.0f));
}

// e^x with the limits above.
ONYX_AVX512 inline __m512 exp_clamped(__m512 x) {
  const __m512 lo = _mm512_set1_ps(-87.3365448f), hi = _mm512_set1_ps(88.7228391f);
  const __m512 xc = _mm512_min_ps(_mm512_max_ps(x, lo), hi);  // NaN becomes lo here, restored below
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(xc, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), xc);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 y = _mm512_scalef_ps(polynomial7(r, _mm512_mul_ps(r, r)), n);
  y = _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, lo, _CMP_LT_OQ), _mm512_setzero_ps());
  y = _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, hi, _CMP_GT_OQ), _mm512_set1_ps(__builtin_inff()));
  return _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);
}

// e^x for x <= 0 (x not NaN): exp_clamped's polynomial without its overflow and NaN handling;
// 0 below -87.34, as there.
ONYX_AVX512 inline __m512 exp_nonpositive(__m512 x) {
  const __m512 lo = _mm512_set1_ps(-87.3365448f);
  const __mmask16 underflow = _mm512_cmp_ps_mask(x, lo, _CMP_LT_OQ);
  const __m512 xc = _mm512_max_ps(x, lo);
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(xc, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), xc);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  return _mm512_maskz_mov_ps(__mmask16(~underflow), _mm512_scalef_ps(polynomial7(r, _mm512_mul_ps(r, r)), n));
}

// erf(x), gelu_common.h's fast_erf on 16 lanes.
ONYX_AVX512 inline __m512 erf(__m512 x) {
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-4.f)), _mm512_set1_ps(4.f));
  const __m512 x2 = _mm512_mul_ps(x, x);
  __m512 p = _mm512_set1_ps(-2.72614225801306e-10f);
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(2.77068142495902e-08f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-2.10102402082508e-06f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-5.69250639462346e-05f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-7.34990630326855e-04f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-2.95459980854025e-03f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-1.60960333262415e-02f));
  __m512 q = _mm512_set1_ps(-1.45660718464996e-05f);
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(-2.13374055278905e-04f));
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(-1.68282697438203e-03f));
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(-7.37332916720468e-03f));
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(-1.42647390514189e-02f));
  return _mm512_div_ps(_mm512_mul_ps(x, p), q);
}

// tanh(x), gelu_common.h's fast_tanh on 16 lanes.
ONYX_AVX512 inline __m512 tanh(__m512 x) {
  const __m512 limit = _mm512_set1_ps(7.90531110763549805f);
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_sub_ps(_mm512_setzero_ps(), limit)), limit);
  const __m512 x2 = _mm512_mul_ps(x, x);
  __m512 p = _mm512_set1_ps(-2.76076847742355e-16f);
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(2.00018790482477e-13f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-8.60467152213735e-11f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(5.12229709037114e-08f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(1.48572235717979e-05f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(6.37261928875436e-04f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(4.89352455891786e-03f));
  __m512 q = _mm512_set1_ps(1.19825839466702e-06f);
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(1.18534705686654e-04f));
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(2.26843463243900e-03f));
  q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(4.89352518554385e-03f));
  return _mm512_div_ps(_mm512_mul_ps(x, p), q);
}

}  // namespace onyx::avx512

#else
#define ONYX_HAVE_AVX512 0
#endif
