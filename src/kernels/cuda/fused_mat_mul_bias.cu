// FusedMatMulBias (ai.onyx.training) on CUDA: Y = activation(op(A) @ op(B) + bias), op a swap of
// the last two dims where transA / transB say, bias [N] over Y's last dim, activation "" (none),
// "Gelu" (erf form) or "FastGelu" (tanh form). Y is prefilled with the bias (spread by the strided
// gather Gemm uses for C) and cuBLAS adds the product to it (beta = 1), so the sum is rounded
// once; the activation then runs in place.
// float32 (no TF32) and float16 (float32 sums).
#include "kernels/cuda/cublas_product.h"
#include "kernels/cuda/gelu.cuh"
#include "kernels/cuda/strided_copy.cuh"

namespace onyx {
namespace {

std::string refuses(const KernelQuery& q) {
  if (const ir::Attribute* at = q.node.attribute("activation"); at && !at->s.empty() && at->s != "Gelu" &&
                                                               at->s != "FastGelu")
    return "activation \"" + at->s + "\" (it takes \"\", \"Gelu\" or \"FastGelu\")";
  return refuse_unless(q, {DataType::kFloat, DataType::kFloat16});
}

class CudaFusedMatMulBias final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    trans_a_ = info.attr_int("transA", 0) != 0;
    trans_b_ = info.attr_int("transB", 0) != 0;
    const std::string activation = info.attr_string("activation", "");
    if (activation == "Gelu") form_ = GeluForm::kErf, activate_ = true;
    else if (activation == "FastGelu") form_ = GeluForm::kTanh, activate_ = true;
    else if (!activation.empty())
      return not_implemented("FusedMatMulBias: activation \"", activation, "\" (it takes \"\", \"Gelu\" or \"FastGelu\")");
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const Tensor& bias = ctx.input(2);
    ONYX_ASSIGN_OR_RETURN(cuda_product::Dims d, cuda_product::dims_of(a, b, trans_a_, trans_b_, "FusedMatMulBias"));
    if (a.rank() < 2 || b.rank() < 2)
      return invalid_argument("FusedMatMulBias: A and B need rank 2 or more, got ", a.describe(), " and ", b.describe());
    if (bias.dtype() != a.dtype() || bias.numel() != d.n)
      return invalid_argument("FusedMatMulBias: the bias must hold ", d.n, " values of A's type, got ", bias.describe());
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, a.dtype(), d.out));
    const int64_t n = y->numel();
    if (n == 0) return Status::Ok();
    ONYX_RETURN_IF_ERROR(cuda().activate());
    DimsAndStrides rows_of_bias;  // Y as [n / N, N], each row read from the bias
    rows_of_bias.rank = 2;
    rows_of_bias.dims[0] = n / d.n;
    rows_of_bias.dims[1] = d.n;
    rows_of_bias.strides[0][1] = 1;
    ONYX_RETURN_IF_ERROR(cuda_copy::launch_strided_gather(bias.raw_data(), y->raw_data(), n, 0, rows_of_bias,
                                                          bias.itemsize(), stream(), "FusedMatMulBias"));
    ONYX_RETURN_IF_ERROR(check_launch("FusedMatMulBias"));
    ONYX_RETURN_IF_ERROR(cuda_product::run(cuda(), a, b, d, trans_a_, trans_b_, 1.f, 1.f, *y, "FusedMatMulBias"));
    if (!activate_) return Status::Ok();
    if (a.dtype() == DataType::kFloat) activation<float>(*y);
    else activation<__half>(*y);
    return check_launch("FusedMatMulBias");
  }

 private:
  template <typename T>
  void activation(Tensor& y) const {
    T* p = static_cast<T*>(y.raw_data());
    const int64_t n = y.numel();
    if (form_ == GeluForm::kErf)
      cuda_gelu::gelu<T, GeluForm::kErf><<<grid_for(n), 256, 0, stream()>>>(p, nullptr, 1, p, n, 1.f);
    else
      cuda_gelu::gelu<T, GeluForm::kTanh><<<grid_for(n), 256, 0, stream()>>>(p, nullptr, 1, p, n, 1.f);
  }

  bool trans_a_ = false, trans_b_ = false, activate_ = false;
  GeluForm form_ = GeluForm::kErf;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "ai.onyx.training", "FusedMatMulBias", 1, kLatestOpset, CudaFusedMatMulBias,
                              refuses, {});

}  // namespace onyx
