// ReduceMax on CUDA (reduce.cuh): the maximum (NaN propagates) over the reduced axes, float32 and float16.
#include "kernels/cuda/reduce.cuh"

namespace onyx {

using CudaReduceMax = CudaReduce<cuda_reduce_ops::Op::kMax, 18>;
ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "ReduceMax", 1, kLatestOpset, CudaReduceMax, float_or_half, {1});

}  // namespace onyx
