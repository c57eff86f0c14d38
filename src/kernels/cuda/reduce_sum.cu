// ReduceSum on CUDA (reduce.cuh): the sum over the reduced axes, float32 and float16.
#include "kernels/cuda/reduce.cuh"

namespace onyx {

using CudaReduceSum = CudaReduce<cuda_reduce_ops::Op::kSum, 13>;
ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "ReduceSum", 1, kLatestOpset, CudaReduceSum, float_or_half, {1});

}  // namespace onyx
