// Upsample (opsets 7-9): nearest or linear resampling by `scales` (an attribute in opset 7,
// the second input from opset 9); output dims are floor(input dim * scale). Coordinates are
// asymmetric (x_in = x_out / scale) and nearest rounds down, so integral scales repeat.
#include "kernels/resize_common.h"

namespace onyx {
namespace {

class UpsampleKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(attrs_, parse_resize_attrs(info, /*legacy=*/true));
    scales_from_input_ = info.opset() >= 9;
    if (!scales_from_input_) {
      if (!info.has_attr("scales")) return invalid_model("attribute 'scales' is required");
      for (float s : info.attr_floats("scales")) scales_attr_.push_back(double(s));
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return invalid_argument("input 'X' is missing or not a tensor");
    std::vector<double> scales = scales_attr_;
    if (scales_from_input_) {
      const Tensor& s = ctx.input(1);
      if (!s.defined() || s.rank() != 1) return invalid_argument("input 'scales' must be a 1-D tensor");
      scales.clear();
      for (int64_t i = 0; i < s.numel(); ++i) scales.push_back(s.get_double(i));
    }
    if (int64_t(scales.size()) != x.rank())
      return invalid_argument("scales has ", scales.size(), " entries for an input of rank ", x.rank());
    std::vector<ResizeAxis> ax(scales.size());
    Shape out_shape;
    for (size_t d = 0; d < scales.size(); ++d) {
      ResizeAxis& a = ax[d];
      a.in_len = x.dim(int64_t(d));
      a.scale = scales[d];
      ONYX_ASSIGN_OR_RETURN(a.out_len, resized_length(a.in_len, a.scale));
      a.length_resized = double(a.in_len) * a.scale;
      out_shape.push_back(a.out_len);
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), out_shape));
    return resize_tensor(ctx, attrs_, ax, x, *y);
  }

 private:
  ResizeAttrs attrs_;
  bool scales_from_input_ = false;
  std::vector<double> scales_attr_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Upsample", 7, 9, UpsampleKernel);

}  // namespace onyx
