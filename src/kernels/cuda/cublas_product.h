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

// One strided-batched float32 product in cuBLAS's own (column-major) terms, for kernels that lay
// out their operands themselves (the attention cores' heads):
//   C_i = alpha * op_a(A_i) op_b(B_i) + beta * C_i,  X_i = X + i * stride_x,  i < count
// with op_a(A_i) m x k, op_b(B_i) k x n, C_i m x n. float32 sums, no TF32. Call after
// cuda.activate(), under cuda.lock_blas().
Status gemm_strided_f32(const CudaProvider& cuda, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                        float alpha, const float* a, int64_t lda, int64_t stride_a, const float* b, int64_t ldb,
                        int64_t stride_b, float beta, float* c, int64_t ldc, int64_t stride_c, int64_t count);

}  // namespace onyx::cuda_product
