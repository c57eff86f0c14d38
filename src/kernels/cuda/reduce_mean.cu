// ReduceMean on CUDA (reduce.cuh): the mean over the reduced axes, float32 and float16.
#include "kernels/cuda/reduce.cuh"

namespace onyx {

using CudaReduceMean = CudaReduce<cuda_reduce_ops::Op::kMean, 18>;
ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "ReduceMean", 1, kLatestOpset, CudaReduceMean, float_or_half, {1});

}  // namespace onyx
