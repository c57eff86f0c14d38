// SoftmaxGrad (ai.onyx.training) on CUDA: the gradient of Softmax over the last axis, from dY and
// the forward output Y of one shape: dX = Y * (dY - sum(dY * Y)) per row. One block per row;
// float32 and float16 (float32 inside).
#include "kernels/cuda/softmax_rows.cuh"

namespace onyx {
namespace {

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
    const unsigned grid = cuda_softmax::row_grid(rows);
    const int threads = cuda_softmax::row_threads(len);
    ONYX_RETURN_IF_ERROR(cuda().activate());
    if (y.dtype() == DataType::kFloat) {
      cuda_softmax::softmax_grad_rows<<<grid, threads, 0, stream()>>>(dy.data<float>(), y.data<float>(), dx->data<float>(),
                                                                      rows, len, 1.f);
    } else {
      auto c = [](const Tensor& t) { return static_cast<const __half*>(t.raw_data()); };
      cuda_softmax::softmax_grad_rows<<<grid, threads, 0, stream()>>>(c(dy), c(y), static_cast<__half*>(dx->raw_data()),
                                                                      rows, len, 1.f);
    }
    return check_launch("SoftmaxGrad");
  }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "ai.onyx.training", "SoftmaxGrad", 1, kLatestOpset, CudaSoftmaxGrad, refuses, {});

}  // namespace onyx
