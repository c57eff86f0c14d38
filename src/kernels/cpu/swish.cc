// Swish (opset 24): y = x * sigmoid(alpha * x), elementwise; 'alpha' defaults to 1. The
// sigmoid is evaluated without overflow for large |alpha * x|; where it underflows to 0 the
// result is 0 (the limit), also for x = +-inf, rather than inf * 0 = NaN.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class SwishKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 1.0f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const float alpha = alpha_;
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [alpha](auto x) {
      using C = decltype(x);
      const C z = C(alpha) * x;
      if (z >= C(0)) return x / (C(1) + std::exp(-z));
      const C e = std::exp(z);
      return e == C(0) ? C(0) : x * e / (C(1) + e);  // 0, not -inf * 0, as z -> -inf
    });
  }

 private:
  float alpha_ = 1.0f;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Swish", 24, kLatestOpset, SwishKernel);

}  // namespace onyx
