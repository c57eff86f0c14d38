#include "kernels/small_matmul.h"

#include "kernels/target_clones.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ONYX_SMALL_MATMUL_AVX512 1
#endif

namespace onyx {
namespace {

constexpr int kRows = 4, kCols = 32;  // the portable form's register tile

#ifdef ONYX_SMALL_MATMUL_AVX512
// One R x 32 tile (R <= 8): 2R accumulators, two loads of b and R broadcasts of a per step.
// Columns past `cols` (< 32 at the right edge) are masked off in loads and stores.
template <int R>
__attribute__((target("avx512f"))) inline void tile_avx512(const float* a, int64_t lda, const float* b, int64_t ldb,
                                                           float* c, int64_t ldc, int64_t cols, int64_t inner,
                                                           float scale) {
  const __mmask16 m0 = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
  const __mmask16 m1 = cols >= 32 ? __mmask16(0xFFFF) : cols <= 16 ? __mmask16(0) : __mmask16((1u << (cols - 16)) - 1);
  // Every loop over i is unrolled so that the accumulators live in registers (an array
  // indexed in a rolled loop is kept on the stack, and the tile runs at half speed).
  __m512 acc0[R], acc1[R];
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i) acc0[i] = acc1[i] = _mm512_setzero_ps();
  for (int64_t t = 0; t < inner; ++t) {
    const __m512 b0 = _mm512_maskz_loadu_ps(m0, b + t * ldb), b1 = _mm512_maskz_loadu_ps(m1, b + t * ldb + 16);
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
      const __m512 av = _mm512_set1_ps(a[i * lda + t]);
      acc0[i] = _mm512_fmadd_ps(av, b0, acc0[i]);
      acc1[i] = _mm512_fmadd_ps(av, b1, acc1[i]);
    }
  }
  const __m512 s = _mm512_set1_ps(scale);
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i) {
    _mm512_mask_storeu_ps(c + i * ldc, m0, _mm512_mul_ps(acc0[i], s));
    _mm512_mask_storeu_ps(c + i * ldc + 16, m1, _mm512_mul_ps(acc1[i], s));
  }
}

template <int R>
__attribute__((target("avx512f"))) void rows_avx512(const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                                                    int64_t ldc, int64_t cols, int64_t inner, float scale) {
  for (int64_t j = 0; j < cols; j += 32)
    tile_avx512<R>(a, lda, b + j, ldb, c + j, ldc, cols - j < 32 ? cols - j : 32, inner, scale);
}

void small_matmul_avx512(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t rows,
                         int64_t cols, int64_t inner, float scale) {
  using RowsFn = void (*)(const float*, int64_t, const float*, int64_t, float*, int64_t, int64_t, int64_t, float);
  static constexpr RowsFn kByRows[9] = {nullptr,        rows_avx512<1>, rows_avx512<2>, rows_avx512<3>, rows_avx512<4>,
                                        rows_avx512<5>, rows_avx512<6>, rows_avx512<7>, rows_avx512<8>};
  for (int64_t r = 0; r < rows; r += 8) {
    const int64_t n = rows - r < 8 ? rows - r : 8;
    kByRows[n](a + r * lda, lda, b, ldb, c + r * ldc, ldc, cols, inner, scale);
  }
}

bool avx512_available() {
  static const bool available = __builtin_cpu_supports("avx512f");
  return available;
}
#endif

}  // namespace

// The portable form: 4 x 32 tiles the compiler keeps in registers, edges with runtime bounds.
ONYX_TARGET_CLONES void small_matmul_portable(const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                                              int64_t ldc, int64_t rows, int64_t cols, int64_t inner, float scale) {
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

void small_matmul(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t rows,
                  int64_t cols, int64_t inner, float scale) {
#ifdef ONYX_SMALL_MATMUL_AVX512
  if (avx512_available()) return small_matmul_avx512(a, lda, b, ldb, c, ldc, rows, cols, inner, scale);
#endif
  small_matmul_portable(a, lda, b, ldb, c, ldc, rows, cols, inner, scale);
}

}  // namespace onyx
