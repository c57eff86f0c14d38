// HardSwish: y = x * max(0, min(1, x / 6 + 1/2)), elementwise.
#include <algorithm>

#include "kernels/unary.h"

namespace onyx {
namespace {

class HardSwishKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) {
      using C = decltype(x);
      return x * std::clamp(x / C(6) + C(0.5), C(0), C(1));
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "HardSwish", 14, kLatestOpset, HardSwishKernel);

}  // namespace onyx
