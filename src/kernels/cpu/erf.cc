// Erf: y = erf(x), elementwise. Integer inputs are computed in double and truncated back.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class ErfKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES, ONYX_INT_TYPES>(ctx, [](auto x) { return std::erf(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Erf", 9, kLatestOpset, ErfKernel);

}  // namespace onyx
