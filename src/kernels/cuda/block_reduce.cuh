// Sums and maxima over a thread block (device code only). Every thread of the block must call
// them; all get the result. `scratch` is 32 floats of shared memory, reused after a barrier.
#pragma once
#include <cuda_runtime.h>

namespace onyx {
namespace cuda_reduce {

__device__ inline float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ inline float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// kMax: maximum, else sum. blockDim.x must be a multiple of 32.
template <bool kMax>
__device__ inline float block_reduce(float v, float* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  v = kMax ? warp_max(v) : warp_sum(v);
  __syncthreads();  // scratch may still be read by a previous reduction
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : (kMax ? -INFINITY : 0.f);
  return kMax ? warp_max(v) : warp_sum(v);
}

}  // namespace cuda_reduce
}  // namespace onyx
