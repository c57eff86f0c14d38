// SoftmaxGrad (ai.onyx.training) on CUDA: the gradient of Softmax over the last axis, from dY and
// the forward output Y of one shape: dX = Y * (dY - sum(dY * Y)) per row. One block per row;
// float32 and float16 (float32 inside).
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_kernel.h"

namespace onyx {
namespace {

template <typename T>
__global__ void softmax_grad_rows(const T* dy, const T* y, T* dx, int64_t rows, int64_t len) {
  __shared__ float scratch[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* g = dy + r * len;
    const T* p = y + r * len;
    float dot = 0.f;
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x) dot += float(g[j]) * float(p[j]);
    dot = cuda_reduce::block_reduce<false>(dot, scratch);
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x) dx[r * len + j] = T(float(p[j]) * (float(g[j]) - dot));
  }
}

std::string refuses(const KernelQuery& q) { return refuse_unless(q, {DataType::kFloat, DataType::kFloat16}); }

class CudaSoftmaxGrad final : public CudaKernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& dy = ctx.input(0);
    const Tensor& y = ctx.input(1);
    ONYX_RETURN_IF_ERROR(expect_float_or_half(y, "SoftmaxGrad", 1));
    if (dy.dtype() != y.dtype() || dy.shape() != y.shape())
      return invalid_argument("SoftmaxGrad: dY ", dy.describe(), " and Y ", y.describe(), " must have one type and shape");
    ONYX_ASSIGN_OR_RETURN(Tensor * dx, ctx.allocate_output_uninitialized(0, y.dtype(), y.shape()));
    if (y.numel() == 0) return Status::Ok();
    const int64_t len = y.rank() ? y.dim(y.rank() - 1) : 1, rows = y.numel() / len;
    const unsigned grid = unsigned(std::min<int64_t>(rows, 65535 * 16));
    const int threads = len >= 1024 ? 512 : len >= 256 ? 256 : 128;
    ONYX_RETURN_IF_ERROR(cuda().activate());
    if (y.dtype() == DataType::kFloat) {
      softmax_grad_rows<<<grid, threads, 0, stream()>>>(dy.data<float>(), y.data<float>(), dx->data<float>(), rows, len);
    } else {
      auto c = [](const Tensor& t) { return static_cast<const __half*>(t.raw_data()); };
      softmax_grad_rows<<<grid, threads, 0, stream()>>>(c(dy), c(y), static_cast<__half*>(dx->raw_data()), rows, len);
    }
    return check_launch("SoftmaxGrad");
  }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "ai.onyx.training", "SoftmaxGrad", 1, kLatestOpset, CudaSoftmaxGrad, refuses, {});

}  // namespace onyx
