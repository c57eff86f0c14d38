// The GELU family on CUDA, float32 and float16 (computed in float32): y = f(x + bias), the
// bias (optional) a 1-D tensor over the last dim. Shared by gelu.cu (com.microsoft Gelu and
// ai.onnx Gelu-20), fast_gelu.cu, bias_gelu.cu and quick_gelu.cu.
#pragma once
#include "kernels/cuda/cuda_kernel.h"

namespace onyx {

enum class GeluForm { kErf, kTanh, kQuick };

namespace cuda_gelu {

template <typename T, GeluForm kForm>
__global__ void gelu(const T* x, const T* bias, int64_t bias_len, T* y, int64_t n, float alpha) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const float v = float(x[i]) + (bias ? float(bias[i % bias_len]) : 0.f);
    float r;
    if (kForm == GeluForm::kErf) r = 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
    else if (kForm == GeluForm::kTanh) r = 0.5f * v * (1.f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
    else r = v / (1.f + expf(-alpha * v));
    y[i] = T(r);
  }
}

}  // namespace cuda_gelu

// y = GELU(x + bias): input 0 is x; input `bias_input` (when present; -1 for none) the bias,
// whose element count must equal x's last dim.
class CudaGeluKernel : public CudaKernel {
 protected:
  Status run(KernelContext& ctx, const char* op, GeluForm form, int bias_input, float alpha = 1.f) const {
    const Tensor& x = ctx.input(0);
    ONYX_RETURN_IF_ERROR(expect_float_or_half(x, op, 0));
    const Tensor* bias = bias_input >= 0 && ctx.has_input(bias_input) ? &ctx.input(bias_input) : nullptr;
    const int64_t last = x.rank() > 0 ? x.dim(x.rank() - 1) : 1;
    if (bias && (bias->dtype() != x.dtype() || bias->numel() != last || bias->rank() != 1))
      return not_implemented("CUDA ", op, " takes a 1-D bias of X's type over X's last dim (", last, "); got ",
                             bias->describe(), " for X ", x.describe());
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    const int64_t n = x.numel();
    if (n == 0) return Status::Ok();
    ONYX_RETURN_IF_ERROR(cuda().activate());
    if (x.dtype() == DataType::kFloat) launch<float>(x, bias, *y, form, alpha);
    else launch<__half>(x, bias, *y, form, alpha);
    return check_launch(op);
  }

 private:
  template <typename T>
  void launch(const Tensor& x, const Tensor* bias, Tensor& y, GeluForm form, float alpha) const {
    const T* px = static_cast<const T*>(x.raw_data());
    const T* pb = bias ? static_cast<const T*>(bias->raw_data()) : nullptr;
    T* py = static_cast<T*>(y.raw_data());
    const int64_t n = x.numel(), len = bias ? bias->numel() : 1;
    const unsigned grid = grid_for(n);
    switch (form) {
      case GeluForm::kErf: cuda_gelu::gelu<T, GeluForm::kErf><<<grid, 256, 0, stream()>>>(px, pb, len, py, n, alpha); break;
      case GeluForm::kTanh: cuda_gelu::gelu<T, GeluForm::kTanh><<<grid, 256, 0, stream()>>>(px, pb, len, py, n, alpha); break;
      case GeluForm::kQuick: cuda_gelu::gelu<T, GeluForm::kQuick><<<grid, 256, 0, stream()>>>(px, pb, len, py, n, alpha); break;
    }
  }
};

}  // namespace onyx
