// Sign: y = -1, 0 or 1 by the sign of x, elementwise; NaN stays NaN.
#include "kernels/unary.h"

namespace onyx {
namespace {

class SignKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_NUMERIC_TYPES>(ctx, [](auto x) {
      using C = decltype(x);
      if (x > C(0)) return C(1);
      if (x < C(0)) return C(-1);
      return x;  // zero (keeping its sign) or NaN
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Sign", 9, kLatestOpset, SignKernel);

}  // namespace onyx
