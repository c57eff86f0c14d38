// ReluGrad (ai.onyx.training) on CUDA: dX = dY where Y > 0, else 0, from dY and Relu's output Y
// of one shape; float32 and float16.
#include "kernels/cuda/cuda_kernel.h"

namespace onyx {
namespace {

template <typename T>
__global__ void relu_grad(const T* dy, const T* y, T* dx, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    dx[i] = float(y[i]) > 0.f ? dy[i] : T(0.f);
}

std::string refuses(const KernelQuery& q) { return refuse_unless(q, {DataType::kFloat, DataType::kFloat16}); }

class CudaReluGrad final : public CudaKernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& dy = ctx.input(0);
    const Tensor& y = ctx.input(1);
    ONYX_RETURN_IF_ERROR(expect_float_or_half(y, "ReluGrad", 1));
    if (dy.dtype() != y.dtype() || dy.shape() != y.shape())
      return invalid_argument("ReluGrad: dY ", dy.describe(), " and Y ", y.describe(), " must have one type and shape");
    ONYX_ASSIGN_OR_RETURN(Tensor * dx, ctx.allocate_output_uninitialized(0, y.dtype(), y.shape()));
    const int64_t n = y.numel();
    if (n == 0) return Status::Ok();
    ONYX_RETURN_IF_ERROR(cuda().activate());
    if (y.dtype() == DataType::kFloat) {
      relu_grad<<<grid_for(n), 256, 0, stream()>>>(dy.data<float>(), y.data<float>(), dx->data<float>(), n);
    } else {
      auto c = [](const Tensor& t) { return static_cast<const __half*>(t.raw_data()); };
      relu_grad<<<grid_for(n), 256, 0, stream()>>>(c(dy), c(y), static_cast<__half*>(dx->raw_data()), n);
    }
    return check_launch("ReluGrad");
  }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "ai.onyx.training", "ReluGrad", 1, kLatestOpset, CudaReluGrad, refuses, {});

}  // namespace onyx
