// Vectorised float32 loops for the memory-bound kernels (Softmax, LogSoftmax, Exp), built
// for AVX-512, AVX2 and baseline x86-64 and picked at start-up (target_clones.h).
//
// exp here is a range reduction to [-ln2/2, ln2/2] plus a degree-7 polynomial: relative
// error below 1.2e-7 (1 ulp) for finite results; exp(x) is 0 below -87.34 (where the true
// value is a denormal below 1.2e-38), +inf above 88.72; NaN stays NaN.
#pragma once
#include <cstdint>

namespace onyx::vec {

// y[i] = exp(x[i]); x and y may be the same array.
void exp(const float* x, float* y, int64_t n);

// One row of softmax: y = exp(x - max(x)) / sum(exp(x - max(x))). A NaN in x makes the row
// NaN. n >= 1.
void softmax_row(const float* x, float* y, int64_t n);

// One row of log-softmax: y = x - max(x) - log(sum(exp(x - max(x)))). n >= 1.
void log_softmax_row(const float* x, float* y, int64_t n);

// One row of softmax's gradient from its output y: dx = y * (dy - sum(dy * y)) * scale, the sum
// in 16 float lanes added in double. dx may be dy.
void softmax_grad_row(const float* dy, const float* y, float* dx, int64_t n, float scale = 1.f);

// sum_i a[i] * b[i], in 16 partial sums (added in lane order, then the tail).
float dot(const float* a, const float* b, int64_t n);

// out[j] = the sum over i < n of q[i] * m[j * ld + i], for j < rows: an attention row's scores.
// On AVX-512 each sum is taken in 32 partial sums reduced as a tree, then the tail (not dot()'s
// order); elsewhere it is dot().
void row_dots(const float* q, const float* m, int64_t rows, int64_t ld, int64_t n, float* out);

// out[i] = sum over j < rows of w[j] * m[j * ld + i], for i < n (j in order for every i): an
// attention row's weights applied to its values.
void weighted_row_sum(const float* w, const float* m, int64_t rows, int64_t ld, int64_t n, float* out);

}  // namespace onyx::vec
