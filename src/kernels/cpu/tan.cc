// Tan: y = tan(x), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class TanKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::tan(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Tan", 7, kLatestOpset, TanKernel);

}  // namespace onyx
