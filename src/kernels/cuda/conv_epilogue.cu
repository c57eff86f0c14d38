// Kernels of conv_epilogue.h.
#include <cuda_fp16.h>

#include "kernels/cuda/conv_epilogue.h"
#include "kernels/cuda/cuda_kernel.h"

namespace onyx {
namespace cuda_conv {
namespace {

__device__ inline float activate(float v, Activation a, float alpha, float beta) {
  switch (a) {
    case Activation::kNone: return v;
    case Activation::kRelu: return fmaxf(v, 0.f);
    case Activation::kClip: return fminf(fmaxf(v, alpha), beta);
    case Activation::kLeakyRelu: return v >= 0.f ? v : alpha * v;
    case Activation::kSigmoid: return 1.f / (1.f + expf(-v));
    case Activation::kTanh: return tanhf(v);
    case Activation::kHardSigmoid: return fminf(fmaxf(alpha * v + beta, 0.f), 1.f);
  }
  return v;
}

template <typename T>
__global__ void epilogue(T* y, int64_t n, int64_t channels, int64_t plane, const T* bias, const T* residual,
                         Activation a, float alpha, float beta) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    float v = float(y[i]);
    if (bias) v += float(bias[(i / plane) % channels]);
    if (residual) v += float(residual[i]);
    y[i] = T(activate(v, a, alpha, beta));
  }
}

template <typename T>
__global__ void prefill(T* y, int64_t n, int64_t channels, int64_t plane, const T* bias, const T* residual) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    float v = 0.f;
    if (bias) v += float(bias[(i / plane) % channels]);
    if (residual) v += float(residual[i]);
    y[i] = T(v);
  }
}

template <typename W>
__global__ void zero_pad(const W* x, W* y, int64_t n, PadGeometry g) {
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2], in_plane = g.in[0] * g.in[1] * g.in[2];
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t rem = i % out_plane, src = 0;
    bool inside = true;
    for (int d = 2; d >= 0; --d) {
      const int64_t o = rem % g.out[d], j = o - g.pad_begin[d];
      rem /= g.out[d];
      inside = inside && j >= 0 && j < g.in[d];
      int64_t scale = 1;
      for (int e = d + 1; e < 3; ++e) scale *= g.in[e];
      src += j * scale;
    }
    y[i] = inside ? x[(i / out_plane) * in_plane + src] : W(0);
  }
}

}  // namespace

Status launch_epilogue(void* y, int64_t count, int64_t channels, int64_t plane, bool half, const Epilogue& e,
                       cudaStream_t stream) {
  if (count == 0 || !e.any()) return Status::Ok();
  if (channels <= 0 || plane <= 0) return invalid_argument("convolution epilogue over an empty channel or plane");
  const unsigned grid = grid_for(count);
  if (half)
    epilogue<<<grid, 256, 0, stream>>>(static_cast<__half*>(y), count, channels, plane,
                                       static_cast<const __half*>(e.bias), static_cast<const __half*>(e.residual),
                                       e.activation, e.alpha, e.beta);
  else
    epilogue<<<grid, 256, 0, stream>>>(static_cast<float*>(y), count, channels, plane, static_cast<const float*>(e.bias),
                                       static_cast<const float*>(e.residual), e.activation, e.alpha, e.beta);
  return Status::Ok();
}

Status launch_prefill(void* y, int64_t count, int64_t channels, int64_t plane, bool half, const void* bias,
                      const void* residual, cudaStream_t stream) {
  if (count == 0) return Status::Ok();
  if (channels <= 0 || plane <= 0) return invalid_argument("convolution prefill over an empty channel or plane");
  const unsigned grid = grid_for(count);
  if (half)
    prefill<<<grid, 256, 0, stream>>>(static_cast<__half*>(y), count, channels, plane, static_cast<const __half*>(bias),
                                      static_cast<const __half*>(residual));
  else
    prefill<<<grid, 256, 0, stream>>>(static_cast<float*>(y), count, channels, plane, static_cast<const float*>(bias),
                                      static_cast<const float*>(residual));
  return Status::Ok();
}

Status launch_zero_pad(const void* x, void* y, int64_t planes, const PadGeometry& g, size_t itemsize,
                       cudaStream_t stream) {
  if (g.rank < 1 || g.rank > 3) return invalid_argument("zero padding over ", g.rank, " spatial dims");
  // Dims are right-aligned: the unused leading ones are 1.
  PadGeometry d;
  d.rank = g.rank;
  for (int k = 0; k < g.rank; ++k) {
    const int j = 3 - g.rank + k;
    d.in[j] = g.in[k];
    d.out[j] = g.out[k];
    d.pad_begin[j] = g.pad_begin[k];
  }
  const int64_t n = planes * d.out[0] * d.out[1] * d.out[2];
  if (n == 0) return Status::Ok();
  const unsigned grid = grid_for(n);
  if (itemsize == 2) zero_pad<<<grid, 256, 0, stream>>>(static_cast<const uint16_t*>(x), static_cast<uint16_t*>(y), n, d);
  else if (itemsize == 4) zero_pad<<<grid, 256, 0, stream>>>(static_cast<const uint32_t*>(x), static_cast<uint32_t*>(y), n, d);
  else return not_implemented("zero padding of ", itemsize, "-byte elements");
  return Status::Ok();
}

}  // namespace cuda_conv
}  // namespace onyx
