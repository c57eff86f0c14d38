// Small dense float32 products for kernels that multiply blocks of their own (attention's
// Q K^T and P V per head), too small and too many for a oneDNN primitive call each.
#pragma once
#include <cstdint>

namespace onyx {

// c[r * ldc + j] = scale * sum_{t < inner} a[r * lda + t] * b[t * ldb + j]
// for r < rows, j < cols. Row-major blocks with leading dims lda, ldb, ldc (in elements);
// c must not overlap a or b. Sums run over t in order, in float32 with fused multiply-adds
// where the CPU has them. AVX-512 CPUs take 8 x 32 register tiles (masked at the edges);
// others a portable tiled loop built for AVX2 and baseline x86-64.
void small_matmul(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t rows,
                  int64_t cols, int64_t inner, float scale);

// The portable form small_matmul falls back to without AVX-512 (same contract); tests call
// it directly so both forms are checked on any machine.
void small_matmul_portable(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc,
                           int64_t rows, int64_t cols, int64_t inner, float scale);

}  // namespace onyx
