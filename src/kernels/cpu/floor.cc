// Floor: y = floor(x), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class FloorKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::floor(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Floor", 1, kLatestOpset, FloorKernel);

}  // namespace onyx
