// Cos: y = cos(x), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class CosKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::cos(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Cos", 7, kLatestOpset, CosKernel);

}  // namespace onyx
