// Softmax on CUDA, float32 and float16 (float32 inside). From opset 13 over the one dim
// `axis` (default -1); before it over all dims from `axis` on (default 1), as the input
// flattened to 2-D at `axis`. One block per row; a row's elements may be strided.
#include "kernels/broadcast.h"
#include "kernels/cuda/softmax_rows.cuh"

namespace onyx {
namespace {

class CudaSoftmax final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    per_axis_ = info.opset() >= 13;
    axis_ = info.attr_int("axis", per_axis_ ? -1 : 1);
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_RETURN_IF_ERROR(expect_float_or_half(x, "Softmax", 0));
    ONYX_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, std::max<int64_t>(x.rank(), 1)));
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    if (x.numel() == 0) return Status::Ok();
    int64_t outer = 1, len = 1, inner = 1;
    for (int64_t d = 0; d < x.rank(); ++d) {
      if (d < axis) outer *= x.dim(d);
      else if (d == axis || !per_axis_) len *= x.dim(d);
      else inner *= x.dim(d);
    }
    const int64_t rows = outer * inner;
    const unsigned grid = cuda_softmax::row_grid(rows);
    const int threads = cuda_softmax::row_threads(len);
    ONYX_RETURN_IF_ERROR(cuda().activate());
    if (x.dtype() == DataType::kFloat)
      cuda_softmax::softmax_rows<<<grid, threads, 0, stream()>>>(x.data<float>(), y->data<float>(), rows, len, inner);
    else
      cuda_softmax::softmax_rows<<<grid, threads, 0, stream()>>>(static_cast<const __half*>(x.raw_data()),
                                                   static_cast<__half*>(y->raw_data()), rows, len, inner);
    return check_launch("Softmax");
  }

 private:
  bool per_axis_ = true;
  int64_t axis_ = -1;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Softmax", 1, kLatestOpset, CudaSoftmax, float_or_half, {});

}  // namespace onyx
