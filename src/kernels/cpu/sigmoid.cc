// Sigmoid: y = 1 / (1 + e^-x), elementwise, evaluated without overflow for large |x|.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class SigmoidKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) {
      using C = decltype(x);
      if (x >= C(0)) return C(1) / (C(1) + std::exp(-x));
      const C e = std::exp(x);
      return e / (C(1) + e);
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Sigmoid", 1, kLatestOpset, SigmoidKernel);

}  // namespace onyx
