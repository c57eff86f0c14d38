// Round: y = x rounded to the nearest integer, halves to even (the default
// floating-point rounding mode), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class RoundKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::nearbyint(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Round", 11, kLatestOpset, RoundKernel);

}  // namespace onyx
