// ReduceL1 on CUDA (reduce.cuh): the sum of absolute values over the reduced axes, float32 and float16.
#include "kernels/cuda/reduce.cuh"

namespace onyx {

using CudaReduceL1 = CudaReduce<cuda_reduce_ops::Op::kL1, 18>;
ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "ReduceL1", 1, kLatestOpset, CudaReduceL1, float_or_half, {1});

}  // namespace onyx
