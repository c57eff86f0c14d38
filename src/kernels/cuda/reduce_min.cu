// ReduceMin on CUDA (reduce.cuh): the minimum (NaN propagates) over the reduced axes, float32 and float16.
#include "kernels/cuda/reduce.cuh"

namespace onyx {

using CudaReduceMin = CudaReduce<cuda_reduce_ops::Op::kMin, 18>;
ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "ReduceMin", 1, kLatestOpset, CudaReduceMin, float_or_half, {1});

}  // namespace onyx
