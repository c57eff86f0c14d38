// Optional: an optional holding the input (a tensor or a sequence), or an empty optional when the
// input is omitted (the 'type' attribute then names the type, which a none value does not need).
#include "kernels/kernel.h"

namespace onyx {
namespace {

class OptionalKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    if (!info.has_input(0) && !info.has_attr("type"))
      return invalid_model("Optional without an input needs the 'type' attribute");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    ctx.set_output(0, ctx.input_value(0));
    return Status::Ok();
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Optional", 15, kLatestOpset, OptionalKernel);

}  // namespace onyx
