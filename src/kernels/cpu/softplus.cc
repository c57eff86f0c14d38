// Softplus: y = ln(1 + e^x), elementwise, evaluated without overflow for large x.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class SoftplusKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) {
      using C = decltype(x);
      return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Softplus", 1, kLatestOpset, SoftplusKernel);

}  // namespace onyx
