// Resize (opset 10+): resamples X by `scales` or to `sizes` with nearest, linear or cubic
// interpolation (see resize_common.h). Inputs: opset 10 (X, scales); opset 11+ (X, roi,
// scales, sizes), exactly one of scales / sizes non-empty. Opset 18 adds the `axes`,
// `antialias` and `keep_aspect_ratio_policy` attributes.
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
    ONYX_ASSIGN_OR_RETURN(const std::vector<ResizeAxis> ax, resolve_resize_axes(ctx, attrs_, legacy_, x.shape()));
    Shape out_shape;
    for (const ResizeAxis& a : ax) out_shape.push_back(a.out_len);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), out_shape));
    return resize_tensor(ctx, attrs_, ax, x, *y);
  }

 private:
  bool legacy_ = false;
  ResizeAttrs attrs_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Resize", 10, kLatestOpset, ResizeKernel);

}  // namespace onyx
