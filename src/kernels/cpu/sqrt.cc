// Sqrt: y = sqrt(x), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class SqrtKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::sqrt(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Sqrt", 1, kLatestOpset, SqrtKernel);

}  // namespace onyx
