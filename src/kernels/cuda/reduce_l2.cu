// ReduceL2 on CUDA (reduce.cuh): the square root of the sum of squares over the reduced axes, float32 and float16.
#include "kernels/cuda/reduce.cuh"

namespace onyx {

using CudaReduceL2 = CudaReduce<cuda_reduce_ops::Op::kL2, 18>;
ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "ReduceL2", 1, kLatestOpset, CudaReduceL2, float_or_half, {1});

}  // namespace onyx
