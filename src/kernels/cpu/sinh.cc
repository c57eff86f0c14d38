// Sinh: y = sinh(x), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class SinhKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::sinh(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Sinh", 9, kLatestOpset, SinhKernel);

}  // namespace onyx
