// Neg: y = -x, elementwise. The most negative signed integer maps to itself (two's complement).
#include "kernels/unary.h"

namespace onyx {
namespace {

class NegKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES, ONYX_SIGNED_INT_TYPES>(ctx, [](auto x) { return wrapping_neg(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Neg", 1, kLatestOpset, NegKernel);

}  // namespace onyx
