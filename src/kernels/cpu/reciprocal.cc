// Reciprocal: y = 1 / x, elementwise.
#include "kernels/unary.h"

namespace onyx {
namespace {

class ReciprocalKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return decltype(x)(1) / x; });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Reciprocal", 1, kLatestOpset, ReciprocalKernel);

}  // namespace onyx
