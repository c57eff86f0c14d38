// Not: y = !x, elementwise on bool.
#include "kernels/unary.h"

namespace onyx {
namespace {

class NotKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return unary_map<bool>(ctx, [](bool x) { return !x; });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Not", 1, kLatestOpset, NotKernel);

}  // namespace onyx
