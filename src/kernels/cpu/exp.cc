// Exp: y = e^x, elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class ExpKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::exp(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Exp", 1, kLatestOpset, ExpKernel);

}  // namespace onyx
