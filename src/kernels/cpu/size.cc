// Size: the input's element count as an int64 scalar.
#include "kernels/kernel.h"

namespace onyx {
namespace {

class SizeKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Value& v = ctx.input_value(0);
    if (!v.is_tensor()) return invalid_argument("Size: the input is ", v.describe(), ", not a tensor");
    ctx.set_output(0, Value(Tensor::scalar<int64_t>(v.tensor().numel())));
    return Status::Ok();
  }
};

}  // namespace

// Only the input's dims are read: a device value is not copied to the host for it.
ONYX_REGISTER_SHAPE_READING_KERNEL("", "Size", 1, kLatestOpset, SizeKernel, {0});

}  // namespace onyx
