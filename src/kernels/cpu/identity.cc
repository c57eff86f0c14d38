// Identity: passes its input through unchanged (a tensor, a sequence or an optional),
// sharing the data.
#include "kernels/kernel.h"

namespace onyx {
namespace {

class IdentityKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ctx.set_output(0, ctx.input_value(0));
    return Status::Ok();
  }
};

}  // namespace

ONYX_REGISTER_ANY_DEVICE_KERNEL("", "Identity", 1, kLatestOpset, IdentityKernel, {});

}  // namespace onyx
