// Swish (ai.onnx, since 24): Y = X * sigmoid(alpha * X), elementwise; attribute alpha (1.0).
// float32, float16, bfloat16 (computed in float32, through kernels/swish_rows.h), double (in
// double).
#include <cmath>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/swish_rows.h"

namespace onyx {
namespace {

class SwishKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 1.f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    const int64_t n = x.numel();
    constexpr int64_t kGrain = 1 << 14, kTile = 1024;
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      const T* xp = x.data<T>();
      T* yp = y->data<T>();
      parallel_for(n, kGrain, [&](int64_t begin, int64_t end) {
        if constexpr (std::is_same_v<T, float>) {
          swish_row(xp + begin, nullptr, yp + begin, end - begin, alpha_);
        } else if constexpr (std::is_same_v<T, double>) {
          const double alpha = alpha_;
          for (int64_t i = begin; i < end; ++i)
            yp[i] = alpha * xp[i] == -INFINITY ? 0.0 : xp[i] / (1.0 + std::exp(-alpha * xp[i]));
        } else {
          float buf[kTile];
          for (int64_t t = begin; t < end; t += kTile) {
            const int64_t m = std::min(kTile, end - t);
            for (int64_t i = 0; i < m; ++i) buf[i] = float(xp[t + i]);
            swish_row(buf, nullptr, buf, m, alpha_);
            for (int64_t i = 0; i < m; ++i) yp[t + i] = T(buf[i]);
          }
        }
      });
      return Status::Ok();
    });
  }

 private:
  float alpha_ = 1.f;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Swish", 24, kLatestOpset, SwishKernel);

}  // namespace onyx
