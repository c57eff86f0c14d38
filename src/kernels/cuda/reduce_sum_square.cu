// ReduceSumSquare on CUDA (reduce.cuh): the sum of squares over the reduced axes, float32 and float16.
#include "kernels/cuda/reduce.cuh"

namespace onyx {

using CudaReduceSumSquare = CudaReduce<cuda_reduce_ops::Op::kSumSquare, 18>;
ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "ReduceSumSquare", 1, kLatestOpset, CudaReduceSumSquare, float_or_half, {1});

}  // namespace onyx
