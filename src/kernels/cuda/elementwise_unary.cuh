// Elementwise unary ops on CUDA, float32 and float16 (float16 computed in float32 and rounded
// once). A stem file (relu.cu, ...) names the functor and registers CudaUnaryKernel<Functor>.
#pragma once
#include "kernels/cuda/cuda_kernel.h"

namespace onyx {
namespace cuda_elementwise {

template <typename T, typename Op>
__global__ void unary(const T* x, T* y, int64_t n, Op op) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    y[i] = T(op(float(x[i])));
}

}  // namespace cuda_elementwise

// Op: a functor with `static constexpr const char* kName` and
// `__device__ float operator()(float x) const`.
template <typename Op>
class CudaUnaryKernel final : public CudaKernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_RETURN_IF_ERROR(expect_float_or_half(x, Op::kName, 0));
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    const int64_t n = x.numel();
    if (n == 0) return Status::Ok();
    ONYX_RETURN_IF_ERROR(cuda().activate());
    if (x.dtype() == DataType::kFloat)
      cuda_elementwise::unary<<<grid_for(n), 256, 0, stream()>>>(x.data<float>(), y->data<float>(), n, Op());
    else
      cuda_elementwise::unary<<<grid_for(n), 256, 0, stream()>>>(static_cast<const __half*>(x.raw_data()),
                                                                 static_cast<__half*>(y->raw_data()), n, Op());
    return check_launch(Op::kName);
  }
};

}  // namespace onyx
