// com.microsoft QuickGelu (contrib op, since 1): Y = X * sigmoid(alpha * X), elementwise;
// attribute alpha (default 1.702). float32, float16, bfloat16, double (the 16-bit types
// computed in float).
#include <cmath>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/target_clones.h"

namespace onyx {
namespace {

ONYX_TARGET_CLONES void quick_gelu_row(const float* x, float* y, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.f + std::exp(-alpha * x[i]));
}

class QuickGeluKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 1.702f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    const int64_t n = x.numel();
    constexpr int64_t kGrain = 1 << 14;
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      const T* xp = x.data<T>();
      T* yp = y->data<T>();
      parallel_for(n, kGrain, [&](int64_t begin, int64_t end) {
        if constexpr (std::is_same_v<T, float>) {
          quick_gelu_row(xp + begin, yp + begin, end - begin, alpha_);
        } else if constexpr (std::is_same_v<T, double>) {
          for (int64_t i = begin; i < end; ++i) yp[i] = xp[i] / (1.0 + std::exp(-double(alpha_) * xp[i]));
        } else {
          for (int64_t i = begin; i < end; ++i) {
            const float v = float(xp[i]);
            yp[i] = T(v / (1.f + std::exp(-alpha_ * v)));
          }
        }
      });
      return Status::Ok();
    });
  }

 private:
  float alpha_ = 1.702f;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "QuickGelu", 1, kLatestOpset, QuickGeluKernel);

}  // namespace onyx
