// ReduceLogSum on CUDA (reduce.cuh): the log of the sum over the reduced axes, float32 and float16.
#include "kernels/cuda/reduce.cuh"

namespace onyx {

using CudaReduceLogSum = CudaReduce<cuda_reduce_ops::Op::kLogSum, 18>;
ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "ReduceLogSum", 1, kLatestOpset, CudaReduceLogSum, float_or_half, {1});

}  // namespace onyx
