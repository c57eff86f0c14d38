// Tanh: y = tanh(x), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class TanhKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::tanh(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Tanh", 1, kLatestOpset, TanhKernel);

}  // namespace onyx
