// Mish (opsets 18 and 22, the same function): y = x * tanh(softplus(x)) with
// softplus(x) = ln(1 + e^x), elementwise; softplus is evaluated without overflow for large x, and
// where it underflows to 0 the result is 0 (the limit, also at x = -inf, not -inf * 0 = NaN).
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class MishKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) {
      using C = decltype(x);
      const C softplus = x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
      return softplus == C(0) ? C(0) : x * std::tanh(softplus);  // the limit 0 at x = -inf
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Mish", 18, kLatestOpset, MishKernel);

}  // namespace onyx
