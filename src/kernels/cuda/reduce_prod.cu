// ReduceProd on CUDA (reduce.cuh): the product over the reduced axes, float32 and float16.
#include "kernels/cuda/reduce.cuh"

namespace onyx {

using CudaReduceProd = CudaReduce<cuda_reduce_ops::Op::kProd, 18>;
ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "ReduceProd", 1, kLatestOpset, CudaReduceProd, float_or_half, {1});

}  // namespace onyx
