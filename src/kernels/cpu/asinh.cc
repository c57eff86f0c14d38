// Asinh: y = asinh(x), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class AsinhKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::asinh(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Asinh", 9, kLatestOpset, AsinhKernel);

}  // namespace onyx
