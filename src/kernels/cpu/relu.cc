// Relu: y = max(x, 0), elementwise.
#include "kernels/unary.h"

namespace onyx {
namespace {

class ReluKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_FLOAT_TYPES, ONYX_SIGNED_INT_TYPES>(ctx, [](auto x) { return x > 0 ? x : decltype(x)(0); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Relu", 1, kLatestOpset, ReluKernel);

}  // namespace onyx
