// Slice: takes starts[i]:ends[i]:steps[i] along axes[i]. Before opset 10 starts, ends and
// axes are attributes (step 1); from 10 they are inputs, with optional axes and steps.
// Negative starts/ends count from the end; out-of-range values are clamped as the spec says.
#include "kernels/element_copy.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"
#include "kernels/slice_plan.h"

namespace onyx {
namespace {

class SliceKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    legacy_ = info.opset() < 10;
    if (legacy_) {
      if (!info.has_attr("starts") || !info.has_attr("ends"))
        return invalid_model("Slice needs 'starts' and 'ends' attributes before opset 10");
      starts_ = info.attr_ints("starts");
      ends_ = info.attr_ints("ends");
      has_axes_ = info.has_attr("axes");
      axes_ = info.attr_ints("axes");
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> starts = starts_, ends = ends_, axes = axes_, steps;
    bool has_axes = has_axes_;
    if (!legacy_) {
      ONYX_ASSIGN_OR_RETURN(starts, read_int_list(ctx.input(1), "starts"));
      ONYX_ASSIGN_OR_RETURN(ends, read_int_list(ctx.input(2), "ends"));
      has_axes = ctx.has_input(3);
      if (has_axes) {
        ONYX_ASSIGN_OR_RETURN(axes, read_int_list(ctx.input(3), "axes"));
      }
      if (ctx.has_input(4)) {
        ONYX_ASSIGN_OR_RETURN(steps, read_int_list(ctx.input(4), "steps"));
      }
    }
    if (has_axes && axes.size() != starts.size())
      return invalid_argument("Slice: starts, ends, axes and steps must have the same length");
    if (!has_axes) axes.clear();
    ONYX_ASSIGN_OR_RETURN(SlicePlan plan, plan_slice(x.shape(), starts, ends, std::move(axes), std::move(steps)));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), plan.out_shape));
    return strided_copy(x, plan.offset, plan.strides, plan.out_shape, *y);
  }

 private:
  bool legacy_ = false;
  bool has_axes_ = false;
  std::vector<int64_t> starts_, ends_, axes_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Slice", 1, kLatestOpset, SliceKernel);

}  // namespace onyx
