// SwiGLU (ai.onnx, since 28): Y = Swish_alpha(A) * B = A * sigmoid(alpha * A) * B,
// elementwise; attribute alpha (1.0). A (the gate) and B (the value) must have one shape and
// one type: no broadcasting. float32, float16, bfloat16 (computed in float32, through
// kernels/swish_rows.h), double (in double).
#include <cmath>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/swish_rows.h"

namespace onyx {
namespace {

class SwigluKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 1.f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (!b.defined() || b.dtype() != a.dtype() || b.shape() != a.shape())
      return invalid_argument("SwiGLU: A and B must have one shape and type (no broadcasting), got A ", a.describe(),
                              " and B ", b.describe());
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, a.dtype(), a.shape()));
    const int64_t n = a.numel();
    constexpr int64_t kGrain = 1 << 14, kTile = 1024;
    return dispatch<ONYX_FLOAT_TYPES>(a.dtype(), [&]<typename T>() -> Status {
      const T* ap = a.data<T>();
      const T* bp = b.data<T>();
      T* yp = y->data<T>();
      parallel_for(n, kGrain, [&](int64_t begin, int64_t end) {
        if constexpr (std::is_same_v<T, float>) {
          swish_row(ap + begin, bp + begin, yp + begin, end - begin, alpha_);
        } else if constexpr (std::is_same_v<T, double>) {
          const double alpha = alpha_;
          for (int64_t i = begin; i < end; ++i) yp[i] = ap[i] / (1.0 + std::exp(-alpha * ap[i])) * bp[i];
        } else {
          float ga[kTile], vb[kTile];
          for (int64_t t = begin; t < end; t += kTile) {
            const int64_t m = std::min(kTile, end - t);
            for (int64_t i = 0; i < m; ++i) {
              ga[i] = float(ap[t + i]);
              vb[i] = float(bp[t + i]);
            }
            swish_row(ga, vb, ga, m, alpha_);
            for (int64_t i = 0; i < m; ++i) yp[t + i] = T(ga[i]);
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

ONYX_REGISTER_KERNEL("", "SwiGLU", 28, kLatestOpset, SwigluKernel);

}  // namespace onyx
