// Row primitives of the float32 layer-normalisation kernels (LayerNormalization,
// SkipLayerNormalization and their gradient): sums kept in 16 float lanes so that loops
// vectorise without reassociation (the lanes added at the end), built for AVX-512, AVX2 and
// plain x86-64 (target_clones.h).
#pragma once
#include <cstdint>

namespace onyx::layer_norm {

// Sum of v[0, n).
float sum(const float* v, int64_t n);

// Sum of (v[i] - mean)^2 over [0, n).
float square_deviation(const float* v, float mean, int64_t n);

// y = (v - mean) * inv * gamma + beta (beta may be null); y may be v.
void normalize(const float* v, float mean, float inv, const float* gamma, const float* beta, float* y, int64_t n);

// One row of LayerNormalization's input gradient, with xhat = (x - mean) * inv:
//   dx = inv * (dy * gamma - mean_g - xhat * mean_gx)
void input_gradient(const float* x, const float* dy, const float* gamma, float mean, float inv, float mean_g,
                    float mean_gx, float* dx, int64_t n);

// Over rows [0, rows) of x and dy (rows of `cols` floats), for columns [c0, c1):
//   dgamma[c] += dy[r][c] * (x[r][c] - mean[r]) * inv[r],  dbeta[c] += dy[r][c]
// in double, row by row (one fixed order). dgamma or dbeta may be null.
void parameter_gradients(const float* x, const float* dy, const float* mean, const float* inv, int64_t rows,
                         int64_t cols, int64_t c0, int64_t c1, double* dgamma, double* dbeta);

// One row of (Skip)LayerNormalization on AVX-512: v = a + b + bias (b and bias may be null),
// written to s when s is not null (the fourth output of SkipLayerNormalization), then
// y = (v - mean) * inv * gamma + beta (beta may be null) with inv = 1 / sqrt(var + epsilon)
// (population variance, sums in float lanes added in double); mean and inv are returned
// through the pointers. s may be y; y may be a. Returns false, writing nothing, where the CPU
// lacks AVX-512.
bool normalize_row_avx512(const float* a, const float* b, const float* bias, float* s, const float* gamma,
                          const float* beta, double epsilon, float* y, int64_t n, float* mean, float* inv);

// The whole of LayerNormalizationGrad over float32 rows in one sweep, on AVX-512: per row the
// mean, variance and the two sums of G = dy * gamma (all over the row kept in L1), dx as for
// input_gradient, and, where dgamma / dbeta are not null, the column sums of dy * xhat and dy
// taken in double per block of rows and the blocks added in order (so the result does not
// depend on the thread count). Returns false, writing nothing, where the CPU lacks AVX-512.
bool gradient_rows_avx512(const float* x, const float* dy, const float* gamma, int64_t rows, int64_t cols,
                          double epsilon, float* dx, float* dgamma, float* dbeta);

}  // namespace onyx::layer_norm
