#include "kernels/slice_plan.h"

#include <algorithm>

#include "kernels/shape_util.h"

namespace onyx {

Result<SlicePlan> plan_slice(const Shape& in, const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                             std::vector<int64_t> axes, std::vector<int64_t> steps) {
  const int64_t rank = int64_t(in.size());
  if (axes.empty()) {
    axes.resize(starts.size());
    for (size_t i = 0; i < axes.size(); ++i) axes[i] = int64_t(i);
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return invalid_argument("Slice: starts, ends, axes and steps must have the same length");
  ONYX_ASSIGN_OR_RETURN(axes, normalize_axes(std::move(axes), rank));

  SlicePlan plan;
  plan.out_shape = in;
  plan.strides = shape_strides(in);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = axes[i], dim = in[size_t(a)], step = steps[i];
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
    plan.out_shape[size_t(a)] = len;
    if (len > 0) plan.offset += start * plan.strides[size_t(a)];
    plan.strides[size_t(a)] = len > 1 ? plan.strides[size_t(a)] * step : 0;
  }
  return plan;
}

}  // namespace onyx
