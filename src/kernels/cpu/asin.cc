// Asin: y = asin(x), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class AsinKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::asin(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Asin", 7, kLatestOpset, AsinKernel);

}  // namespace onyx
