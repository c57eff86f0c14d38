// Atanh: y = atanh(x), elementwise.
#include <cmath>

#include "kernels/unary.h"

namespace onyx {
namespace {

class AtanhKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::atanh(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Atanh", 9, kLatestOpset, AtanhKernel);

}  // namespace onyx
