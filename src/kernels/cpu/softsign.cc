// Softsign: y = x / (1 + |x|), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class SoftsignKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return x / (decltype(x)(1) + std::abs(x)); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Softsign", 1, kLatestOpset, SoftsignKernel);

}  // namespace onyx
