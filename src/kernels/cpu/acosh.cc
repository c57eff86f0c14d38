// Acosh: y = acosh(x), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class AcoshKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::acosh(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Acosh", 9, kLatestOpset, AcoshKernel);

}  // namespace onyx
