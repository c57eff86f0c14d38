// Ceil: y = ceil(x), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class CeilKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::ceil(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Ceil", 1, kLatestOpset, CeilKernel);

}  // namespace onyx
