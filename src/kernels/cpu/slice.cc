// Slice: takes starts[i]:ends[i]:steps[i] along axes[i]. Before opset 10 starts, ends and
// axes are attributes (step 1); from 10 they are inputs, with optional axes and steps.
// Negative starts/ends count from the end; out-of-range values are clamped as the spec says.
#include <algorithm>

#include "kernels/element_copy.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

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
    const int64_t rank = x.rank();
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
    if (!has_axes) {
      axes.resize(starts.size());
      for (size_t i = 0; i < axes.size(); ++i) axes[i] = int64_t(i);
    }
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
      return invalid_argument("Slice: starts, ends, axes and steps must have the same length");
    ONYX_ASSIGN_OR_RETURN(axes, normalize_axes(std::move(axes), rank));

    Shape out_shape = x.shape();
    std::vector<int64_t> strides = shape_strides(x.shape());
    int64_t offset = 0;
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t a = axes[i], dim = x.dim(a), step = steps[i];
      if (step == 0) return invalid_argument("Slice: step 0 on axis ", a);
      int64_t start = starts[i], end = ends[i];
      if (start < 0) start += dim;
      if (end < 0) end += dim;
      // |step| capped at dim + 1 (any larger step takes one element) to keep arithmetic in range.
      const int64_t mag = step > 0 ? std::min(step, dim + 1) : (step < -dim - 1 ? dim + 1 : -step);
      int64_t len = 0;
      if (step > 0) {
        start = std::clamp<int64_t>(start, 0, dim);
        end = std::clamp<int64_t>(end, 0, dim);
        if (end > start) len = (end - start - 1) / mag + 1;
      } else if (dim > 0) {
        start = std::clamp<int64_t>(start, 0, dim - 1);
        end = std::clamp<int64_t>(end, -1, dim - 1);
        if (start > end) len = (start - end - 1) / mag + 1;
      }
      out_shape[size_t(a)] = len;
      if (len > 0) offset += start * strides[size_t(a)];
      strides[size_t(a)] = len > 1 ? strides[size_t(a)] * step : 0;
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), out_shape));
    return strided_copy(x, offset, strides, out_shape, *y);
  }

 private:
  bool legacy_ = false;
  bool has_axes_ = false;
  std::vector<int64_t> starts_, ends_, axes_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Slice", 1, kLatestOpset, SliceKernel);

}  // namespace onyx
