// GeluGrad (ai.onyx.training) on CUDA: dX = dY * gelu'(X), elementwise, float32 and float16
// (computed in float32). approximate "none" (erf form):
//   gelu'(x) = 0.5 * (1 + erf(x / sqrt(2))) + x * exp(-x^2 / 2) / sqrt(2 pi)
// or "tanh" (t = tanh(k * (x + c x^3)), k = sqrt(2 / pi), c = 0.044715):
//   gelu'(x) = 0.5 * (1 + t) + 0.5 * x * (1 - t^2) * k * (1 + 3 c x^2)
#include "kernels/cuda/cuda_kernel.h"

namespace onyx {
namespace {

template <typename T, bool kTanh>
__global__ void gelu_grad(const T* dy, const T* x, T* dx, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const float v = float(x[i]);
    float d;
    if (kTanh) {
      constexpr float k = 0.7978845608028654f, c = 0.044715f;
      const float t = tanhf(k * (v + c * v * v * v));
      d = 0.5f * (1.f + t) + 0.5f * v * (1.f - t * t) * k * (1.f + 3.f * c * v * v);
    } else {
      d = 0.5f * (1.f + erff(v * 0.70710678118654752f)) + v * expf(-0.5f * v * v) * 0.3989422804014327f;
    }
    dx[i] = T(float(dy[i]) * d);
  }
}

std::string refuses(const KernelQuery& q) {
  if (const ir::Attribute* at = q.node.attribute("approximate"); at && at->s != "none" && at->s != "tanh")
    return "approximate \"" + at->s + "\"";
  return refuse_unless(q, {DataType::kFloat, DataType::kFloat16});
}

class CudaGeluGrad final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    const std::string approximate = info.attr_string("approximate", "none");
    if (approximate != "none" && approximate != "tanh")
      return invalid_model("GeluGrad: approximate must be \"none\" or \"tanh\", got \"", approximate, "\"");
    tanh_ = approximate == "tanh";
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& dy = ctx.input(0);
    const Tensor& x = ctx.input(1);
    ONYX_RETURN_IF_ERROR(expect_float_or_half(x, "GeluGrad", 1));
    if (dy.dtype() != x.dtype() || dy.shape() != x.shape())
      return invalid_argument("GeluGrad: dY ", dy.describe(), " and X ", x.describe(), " must have one type and shape");
    ONYX_ASSIGN_OR_RETURN(Tensor * dx, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    const int64_t n = x.numel();
    if (n == 0) return Status::Ok();
    ONYX_RETURN_IF_ERROR(cuda().activate());
    if (x.dtype() == DataType::kFloat) launch<float>(dy, x, *dx);
    else launch<__half>(dy, x, *dx);
    return check_launch("GeluGrad");
  }

 private:
  template <typename T>
  void launch(const Tensor& dy, const Tensor& x, Tensor& dx) const {
    const int64_t n = x.numel();
    auto c = [](const Tensor& t) { return static_cast<const T*>(t.raw_data()); };
    T* out = static_cast<T*>(dx.raw_data());
    if (tanh_) gelu_grad<T, true><<<grid_for(n), 256, 0, stream()>>>(c(dy), c(x), out, n);
    else gelu_grad<T, false><<<grid_for(n), 256, 0, stream()>>>(c(dy), c(x), out, n);
  }

  bool tanh_ = false;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "ai.onyx.training", "GeluGrad", 1, kLatestOpset, CudaGeluGrad, refuses, {});

}  // namespace onyx
