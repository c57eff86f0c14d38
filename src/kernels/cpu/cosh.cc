// Cosh: y = cosh(x), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class CoshKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::cosh(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Cosh", 9, kLatestOpset, CoshKernel);

}  // namespace onyx
