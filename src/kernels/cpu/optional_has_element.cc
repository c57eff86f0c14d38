// OptionalHasElement: a bool scalar, true when the input optional holds a value. From opset 18
// the input may be omitted (false) or be a plain tensor or sequence (true).
#include "kernels/kernel.h"

namespace onyx {
namespace {

class OptionalHasElementKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(Tensor* out, ctx.allocate_output(0, DataType::kBool, {}));
    *out->data<bool>() = ctx.has_input(0);
    return Status::Ok();
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "OptionalHasElement", 15, kLatestOpset, OptionalHasElementKernel);

}  // namespace onyx
