// ReduceLogSumExp on CUDA (reduce.cuh): log(sum(exp(x))), as max + log(sum(exp(x - max))) over the reduced axes, float32 and float16.
#include "kernels/cuda/reduce.cuh"

namespace onyx {

using CudaReduceLogSumExp = CudaReduce<cuda_reduce_ops::Op::kLogSumExp, 18>;
ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "ReduceLogSumExp", 1, kLatestOpset, CudaReduceLogSumExp, float_or_half, {1});

}  // namespace onyx
