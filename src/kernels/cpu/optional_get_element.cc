// OptionalGetElement: the tensor or sequence an optional holds; an error for an empty optional.
// From opset 18 the input may also be a plain tensor or sequence, returned as is.
#include "kernels/kernel.h"

namespace onyx {
namespace {

class OptionalGetElementKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Value& v = ctx.input_value(0);
    if (v.is_none()) return invalid_argument("OptionalGetElement: the optional is empty");
    ctx.set_output(0, v);
    return Status::Ok();
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "OptionalGetElement", 15, kLatestOpset, OptionalGetElementKernel);

}  // namespace onyx
