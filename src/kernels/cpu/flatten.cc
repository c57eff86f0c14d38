// Flatten: reshapes to 2-D [prod(dims[:axis]), prod(dims[axis:])]; axis in [-rank, rank]
// (negative from opset 11). The output shares the input's buffer.
#include "kernels/kernel.h"

namespace onyx {
namespace {

class FlattenKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", 1);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t axis = axis_;
    if (axis < -x.rank() || axis > x.rank())
      return invalid_argument("Flatten: axis ", axis_, " is out of range for ", x.describe());
    if (axis < 0) axis += x.rank();
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
    int64_t inner = 1;
    for (int64_t d = axis; d < x.rank(); ++d) inner *= x.dim(d);
    ONYX_ASSIGN_OR_RETURN(Tensor y, x.reshaped({outer, inner}));
    ctx.set_output(0, Value(std::move(y)));
    return Status::Ok();
  }

 private:
  int64_t axis_ = 1;
};

}  // namespace

ONYX_REGISTER_ANY_DEVICE_KERNEL("", "Flatten", 1, kLatestOpset, FlattenKernel, {});

}  // namespace onyx
