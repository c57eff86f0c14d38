// IsNaN: y = (x is NaN), elementwise; a bool tensor.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class IsNaNKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map_to<bool, ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::isnan(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "IsNaN", 9, kLatestOpset, IsNaNKernel);

}  // namespace onyx
