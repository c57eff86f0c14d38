// Acos: y = acos(x), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class AcosKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::acos(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Acos", 7, kLatestOpset, AcosKernel);

}  // namespace onyx
