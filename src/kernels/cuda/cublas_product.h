// Products through cuBLAS shared by MatMul, FusedMatMul and FusedMatMulBias on CUDA:
//   Y = alpha * op(A) @ op(B) + beta * Y
// with numpy.matmul's batching (batch dims broadcast; a 1-D operand promoted and its dim
// dropped from Y, its transpose ignored) and op a swap of the last two dims where trans_a /
// trans_b say, read in place by cuBLAS (no copy). float32 with float32 sums and no TF32;
// float16 with float32 sums.
#pragma once
#include "kernels/cuda/cuda_kernel.h"

namespace onyx::cuda_product {

struct Dims {
  Shape out;      // Y's shape
  Shape batch;    // the broadcast batch dims
  Shape a_batch;  // A's and B's own batch dims
  Shape b_batch;
  int64_t m = 0, n = 0, k = 0;
};

// The product's dims, or INVALID_ARGUMENT naming `op` (types, ranks, inner dims).
Result<Dims> dims_of(const Tensor& a, const Tensor& b, bool trans_a, bool trans_b, const char* op);

// Queues Y = alpha * op(A) @ op(B) + beta * Y on the provider's stream (Y allocated with
// d.out; beta 0 or 1: 0 ignores Y's contents, 1 adds to them). One strided-batched call where each operand covers the
// batch or does not vary over it; else one call per batch item.
Status run(const CudaProvider& cuda, const Tensor& a, const Tensor& b, const Dims& d, bool trans_a, bool trans_b,
           float alpha, float beta, Tensor& y, const char* op);

}  // namespace onyx::cuda_product
