// Clip on CUDA, float32 and float16: y = min(max(x, lo), hi), NaN kept, every element hi when
// lo > hi (as on the CPU). The bounds are attributes before opset 11 and from then the optional
// one-element inputs 1 and 2, read on the host; an absent bound does not clip.
#include <cmath>

#include "kernels/cuda/cuda_kernel.h"

namespace onyx {
namespace {

template <typename T>
__global__ void clip(const T* x, T* y, int64_t n, float lo, float hi) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    float v = float(x[i]);
    if (v < lo) v = lo;
    if (v > hi) v = hi;
    y[i] = T(v);
  }
}

class CudaClip final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    legacy_ = info.opset() < 11;
    if (legacy_) {
      if (info.has_attr("min")) lo_ = info.attr_float("min", 0.f);
      if (info.has_attr("max")) hi_ = info.attr_float("max", 0.f);
    }
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_RETURN_IF_ERROR(expect_float_or_half(x, "Clip", 0));
    float lo = lo_, hi = hi_;
    for (int i = 1; i <= 2 && !legacy_; ++i) {
      if (!ctx.has_input(i)) continue;
      const Tensor& b = ctx.input(i);
      if (b.numel() != 1 || b.dtype() != x.dtype())
        return invalid_argument("Clip bound input ", i, " must hold one element of X's type, got ", b.describe());
      (i == 1 ? lo : hi) = float(b.get_double(0));
    }
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    const int64_t n = x.numel();
    if (n == 0) return Status::Ok();
    ONYX_RETURN_IF_ERROR(cuda().activate());
    if (x.dtype() == DataType::kFloat)
      clip<<<grid_for(n), 256, 0, stream()>>>(x.data<float>(), y->data<float>(), n, lo, hi);
    else
      clip<<<grid_for(n), 256, 0, stream()>>>(static_cast<const __half*>(x.raw_data()),
                                              static_cast<__half*>(y->raw_data()), n, lo, hi);
    return check_launch("Clip");
  }

 private:
  bool legacy_ = false;
  float lo_ = -INFINITY, hi_ = INFINITY;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Clip", 1, kLatestOpset, CudaClip, float_or_half, {1, 2});

}  // namespace onyx
