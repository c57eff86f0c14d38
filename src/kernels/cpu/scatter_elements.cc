// ScatterElements: copies data, then writes (or with 'reduction', combines) each update at
// its position with the 'axis' coordinate replaced by the matching index.
#include "kernels/kernel.h"
#include "kernels/scatter_common.h"

namespace onyx {
namespace {

class ScatterElementsKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", 0);
    ONYX_ASSIGN_OR_RETURN(reduction_, parse_scatter_reduction(info.attr_string("reduction", "none"), info.opset()));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, data.dtype(), data.shape()));
    return scatter_elements(data, ctx.input(1), ctx.input(2), axis_, reduction_, *y);
  }

 private:
  int64_t axis_ = 0;
  ScatterReduction reduction_ = ScatterReduction::kNone;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "ScatterElements", 1, kLatestOpset, ScatterElementsKernel);

}  // namespace onyx
