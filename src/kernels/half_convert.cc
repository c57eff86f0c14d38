#include "kernels/half_convert.h"

#include "core/data_type.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace onyx {
namespace {

#if defined(__x86_64__)
__attribute__((target("avx2,f16c"))) void half_to_float_f16c(const uint16_t* h, float* f, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(f + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i))));
  for (; i < n; ++i) f[i] = Float16::to_float(h[i]);
}

__attribute__((target("avx2,f16c"))) void float_to_half_f16c(const float* f, uint16_t* h, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(h + i), _mm256_cvtps_ph(_mm256_loadu_ps(f + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; ++i) h[i] = Float16::from_float(f[i]);
}

// F16C from CPUID leaf 1 (clang 14's __builtin_cpu_supports does not know "f16c").
bool cpu_has_f16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
}

const bool kHasF16c = __builtin_cpu_supports("avx2") && cpu_has_f16c();
#else
constexpr bool kHasF16c = false;
#endif

}  // namespace

void half_to_float(const uint16_t* half, float* out, int64_t n) {
#if defined(__x86_64__)
  if (kHasF16c) return half_to_float_f16c(half, out, n);
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = Float16::to_float(half[i]);
}

void float_to_half(const float* in, uint16_t* half, int64_t n) {
#if defined(__x86_64__)
  if (kHasF16c) return float_to_half_f16c(in, half, n);
#endif
  for (int64_t i = 0; i < n; ++i) half[i] = Float16::from_float(in[i]);
}

}  // namespace onyx
