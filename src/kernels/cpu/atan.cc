// Atan: y = atan(x), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class AtanKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::atan(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Atan", 7, kLatestOpset, AtanKernel);

}  // namespace onyx
