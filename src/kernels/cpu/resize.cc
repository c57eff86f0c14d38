// Resize (opset 10+): resamples X by `scales` or to `sizes` with nearest, linear or cubic
// interpolation (see resize_common.h). Inputs: opset 10 (X, scales); opset 11+ (X, roi,
// scales, sizes), exactly one of scales / sizes non-empty. Opset 18 adds the `axes`,
// `antialias` and `keep_aspect_ratio_policy` attributes.
#include <algorithm>
#include <cmath>

#include "kernels/resize_common.h"

namespace onyx {
namespace {

class ResizeKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    legacy_ = info.opset() < 11;
    ONYX_ASSIGN_OR_RETURN(attrs_, parse_resize_attrs(info, legacy_));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return invalid_argument("input 'X' is missing or not a tensor");
    const int64_t rank = x.rank();
    // The dims that roi / scales / sizes refer to.
    std::vector<int64_t> axes;
    if (attrs_.axes.empty()) {
      for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    } else {
      std::vector<bool> seen(size_t(rank), false);
      for (int64_t a : attrs_.axes) {
        if (a < -rank || a >= rank) return invalid_argument("axis ", a, " is out of range for rank ", rank);
        const int64_t d = a < 0 ? a + rank : a;
        if (seen[size_t(d)]) return invalid_argument("axis ", a, " is repeated");
        seen[size_t(d)] = true;
        axes.push_back(d);
      }
    }
    const size_t k = axes.size();
    const Tensor* roi = nullptr;
    const Tensor* scales = nullptr;
    const Tensor* sizes = nullptr;
    auto given = [&](int i) { return ctx.has_input(i) && ctx.input(i).defined() && ctx.input(i).numel() > 0; };
    if (legacy_) {
      if (given(1)) scales = &ctx.input(1);
    } else {
      if (given(1)) roi = &ctx.input(1);
      if (given(2)) scales = &ctx.input(2);
      if (given(3)) sizes = &ctx.input(3);
    }
    if ((scales != nullptr) == (sizes != nullptr))
      return invalid_argument("exactly one of 'scales' and 'sizes' must be given (and non-empty)");
    const Tensor* given_t = scales ? scales : sizes;
    if (given_t->rank() != 1 || size_t(given_t->numel()) != k)
      return invalid_argument(scales ? "scales" : "sizes", " must have one entry per resized axis (", k, "), got ",
                              given_t->describe());

    std::vector<ResizeAxis> ax(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) {
      ax[size_t(d)].in_len = ax[size_t(d)].out_len = x.dim(d);
      ax[size_t(d)].length_resized = double(x.dim(d));
    }
    if (roi) {
      if (size_t(roi->numel()) != 2 * k) return invalid_argument("roi must have ", 2 * k, " entries, got ", roi->describe());
      for (size_t i = 0; i < k; ++i) {
        ax[size_t(axes[i])].roi_start = roi->get_double(int64_t(i));
        ax[size_t(axes[i])].roi_end = roi->get_double(int64_t(k + i));
      }
    }
    if (scales) {
      for (size_t i = 0; i < k; ++i) {
        ResizeAxis& a = ax[size_t(axes[i])];
        a.scale = scales->get_double(int64_t(i));
        ONYX_ASSIGN_OR_RETURN(a.out_len, resized_length(a.in_len, a.scale));
        a.length_resized = double(a.in_len) * a.scale;
      }
    } else {
      ONYX_RETURN_IF_ERROR(apply_sizes(*sizes, axes, ax));
    }
    Shape out_shape;
    for (const ResizeAxis& a : ax) out_shape.push_back(a.out_len);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), out_shape));
    return resize_tensor(ctx, attrs_, ax, x, *y);
  }

 private:
  // Sets out_len and scale of the resized axes from `sizes`, honouring keep_aspect_ratio_policy.
  Status apply_sizes(const Tensor& sizes, const std::vector<int64_t>& axes, std::vector<ResizeAxis>& ax) const {
    const size_t k = axes.size();
    for (size_t i = 0; i < k; ++i) {
      const int64_t s = sizes.get_int64(int64_t(i));
      const ResizeAxis& a = ax[size_t(axes[i])];
      if (s < 0) return invalid_argument("sizes must be non-negative, got ", s);
      if (a.in_len == 0 && s > 0) return invalid_argument("cannot resize an empty dim to ", s);
    }
    if (attrs_.keep_aspect == KeepAspectRatioPolicy::kStretch) {
      for (size_t i = 0; i < k; ++i) {
        ResizeAxis& a = ax[size_t(axes[i])];
        a.out_len = sizes.get_int64(int64_t(i));
        a.scale = a.in_len == 0 ? 1.0 : double(a.out_len) / double(a.in_len);
        a.length_resized = double(a.out_len);
      }
      return Status::Ok();
    }
    // One scale for all resized axes: the largest (not_larger) / smallest (not_smaller) fit.
    const bool not_larger = attrs_.keep_aspect == KeepAspectRatioPolicy::kNotLarger;
    double scale = not_larger ? INFINITY : 0;
    for (size_t i = 0; i < k; ++i) {
      const ResizeAxis& a = ax[size_t(axes[i])];
      if (a.in_len == 0) continue;
      const double r = double(sizes.get_int64(int64_t(i))) / double(a.in_len);
      scale = not_larger ? std::min(scale, r) : std::max(scale, r);
    }
    if (!(scale > 0) || !std::isfinite(scale)) return invalid_argument("sizes give no usable common scale");
    for (size_t i = 0; i < k; ++i) {
      ResizeAxis& a = ax[size_t(axes[i])];
      a.scale = scale;
      a.length_resized = scale * double(a.in_len);
      if (a.length_resized > double(int64_t(1) << 40)) return invalid_argument("sizes give an output that is too large");
      a.out_len = int64_t(std::floor(a.length_resized + 0.5));  // round half up
    }
    return Status::Ok();
  }

  bool legacy_ = false;
  ResizeAttrs attrs_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Resize", 10, kLatestOpset, ResizeKernel);

}  // namespace onyx
