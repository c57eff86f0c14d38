// Gemm on CUDA through cuBLAS: Y = alpha * A' B' + beta * C with A' = A or A^T (transA), B' = B
// or B^T (transB), float32 (float32 products and sums, no TF32) and float16 (float32 sums). C
// (optional from opset 11) broadcasts to [M, N]: it is first spread into Y by a strided gather,
// then the product accumulates onto it.
#include "kernels/broadcast.h"
#include "kernels/cuda/strided_copy.cuh"

namespace onyx {
namespace {

std::string refuses(const KernelQuery& q) { return refuse_unless(q, {DataType::kFloat, DataType::kFloat16}); }

class CudaGemm final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 1.f);
    beta_ = info.attr_float("beta", 1.f);
    trans_a_ = info.attr_int("transA", 0) != 0;
    trans_b_ = info.attr_int("transB", 0) != 0;
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    ONYX_RETURN_IF_ERROR(expect_float_or_half(a, "Gemm", 0));
    if (a.rank() != 2 || b.rank() != 2 || b.dtype() != a.dtype())
      return invalid_argument("Gemm: A and B must be 2-D of one type, got ", a.describe(), " and ", b.describe());
    const int64_t m = trans_a_ ? a.dim(1) : a.dim(0), k = trans_a_ ? a.dim(0) : a.dim(1);
    const int64_t kb = trans_b_ ? b.dim(1) : b.dim(0), n = trans_b_ ? b.dim(0) : b.dim(1);
    if (k != kb) return invalid_argument("Gemm: inner dims differ, ", a.describe(), " x ", b.describe());
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) return not_implemented("CUDA Gemm: dims past 2^31");
    const Tensor* c = ctx.has_input(2) && beta_ != 0.f ? &ctx.input(2) : nullptr;
    const Shape out = {m, n};
    if (c) {
      if (c->dtype() != a.dtype()) return invalid_argument("Gemm: C is ", c->describe(), ", A is ", a.describe());
      ONYX_ASSIGN_OR_RETURN(Shape joint, broadcast_shapes({c->shape(), out}));
      if (joint != out) return invalid_argument("Gemm: C ", c->describe(), " does not broadcast to [", m, ",", n, "]");
    }
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, a.dtype(), out));
    if (y->numel() == 0) return Status::Ok();
    ONYX_RETURN_IF_ERROR(cuda().activate());
    float beta = 0.f;
    if (c && c->numel() > 0) {
      DimsAndStrides d;
      d.rank = 2;
      const std::vector<int64_t> s = broadcast_strides(c->shape(), out);
      for (int j = 0; j < 2; ++j) {
        d.dims[j] = out[size_t(j)];
        d.strides[0][j] = s[size_t(j)];
      }
      ONYX_RETURN_IF_ERROR(cuda_copy::launch_strided_gather(c->raw_data(), y->raw_data(), y->numel(), 0, d,
                                                            c->itemsize(), stream(), "Gemm"));
      ONYX_RETURN_IF_ERROR(check_launch("Gemm (C)"));
      beta = beta_;
    }
    if (k == 0) {  // no products: Y = beta * C, or zeros
      if (beta == 0.f)
        return cuda_status(cudaMemsetAsync(y->raw_data(), 0, y->nbytes(), stream()), "cudaMemsetAsync (Gemm)");
      if (beta != 1.f) return not_implemented("CUDA Gemm with K = 0 and beta other than 0 or 1");
      return Status::Ok();
    }
    // Row-major Y = A' B' is column-major Y^T = B'^T A'^T; a row-major matrix read column-major
    // is its transpose, so B goes first, transposed exactly when transB is set.
    const cudaDataType_t type = a.dtype() == DataType::kFloat ? CUDA_R_32F : CUDA_R_16F;
    auto lock = cuda().lock_blas();
    ONYX_CUBLAS_RETURN_IF_ERROR(cublasGemmEx(
        cuda().cublas(), trans_b_ ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a_ ? CUBLAS_OP_T : CUBLAS_OP_N, int(n), int(m),
        int(k), &alpha_, b.raw_data(), type, int(b.dim(1)), a.raw_data(), type, int(a.dim(1)), &beta, y->raw_data(),
        type, int(n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    return Status::Ok();
  }

 private:
  float alpha_ = 1.f, beta_ = 1.f;
  bool trans_a_ = false, trans_b_ = false;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Gemm", 7, kLatestOpset, CudaGemm, refuses, {});

}  // namespace onyx
