// Softmax rows and their gradient on CUDA (device code and launch sizes), shared by Softmax,
// SoftmaxGrad and the attention cores. One block per row, float32 inside; a kernel may run in
// place (y == x, dx == dy): each element is read and then written by the same thread, after
// the row's reductions.
#pragma once
#include <cmath>

#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_kernel.h"

namespace onyx::cuda_softmax {

// Row r = (outer o, inner i) holds x[o * len * inner + j * inner + i] for j < len.
template <typename T>
__global__ void softmax_rows(const T* x, T* y, int64_t rows, int64_t len, int64_t inner) {
  __shared__ float scratch[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const int64_t base = (r / inner) * len * inner + r % inner;
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x) m = fmaxf(m, float(x[base + j * inner]));
    m = cuda_reduce::block_reduce<true>(m, scratch);
    float s = 0.f;
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x) s += expf(float(x[base + j * inner]) - m);
    s = cuda_reduce::block_reduce<false>(s, scratch);
    const float inv = 1.f / s;
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x)
      y[base + j * inner] = T(expf(float(x[base + j * inner]) - m) * inv);
  }
}

// dx = scale * y * (dy - sum(dy * y)) per contiguous row of `len`.
template <typename T>
__global__ void softmax_grad_rows(const T* dy, const T* y, T* dx, int64_t rows, int64_t len, float scale) {
  __shared__ float scratch[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* g = dy + r * len;
    const T* p = y + r * len;
    float dot = 0.f;
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x) dot += float(g[j]) * float(p[j]);
    dot = cuda_reduce::block_reduce<false>(dot, scratch);
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x)
      dx[r * len + j] = T(scale * float(p[j]) * (float(g[j]) - dot));
  }
}

inline unsigned row_grid(int64_t rows) { return unsigned(rows < 65535 * 16 ? rows : 65535 * 16); }
inline int row_threads(int64_t len) { return len >= 1024 ? 512 : len >= 256 ? 256 : 128; }

}  // namespace onyx::cuda_softmax
