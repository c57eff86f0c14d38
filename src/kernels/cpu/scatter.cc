// Scatter (deprecated since opset 11): ScatterElements without reduction.
#include "kernels/kernel.h"
#include "kernels/scatter_common.h"

namespace onyx {
namespace {

class ScatterKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", 0);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, data.dtype(), data.shape()));
    return scatter_elements(data, ctx.input(1), ctx.input(2), axis_, ScatterReduction::kNone, *y);
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Scatter", 1, kLatestOpset, ScatterKernel);

}  // namespace onyx
