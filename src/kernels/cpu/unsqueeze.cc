// Unsqueeze: inserts size-1 dims at the listed axes of the output (attribute before opset 13,
// input from 13); axes are normalised against the output rank. The output shares the
// input's buffer.
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class UnsqueezeKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axes_from_input_ = info.opset() >= 13;
    if (!axes_from_input_) {
      if (!info.has_attr("axes")) return invalid_model("Unsqueeze needs an 'axes' attribute before opset 13");
      axes_attr_ = info.attr_ints("axes");
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> axes = axes_attr_;
    if (axes_from_input_) {
      ONYX_ASSIGN_OR_RETURN(axes, read_int_list(ctx.input(1), "axes"));
    }
    const int64_t rank = x.rank() + int64_t(axes.size());
    ONYX_ASSIGN_OR_RETURN(axes, normalize_axes(std::move(axes), rank));
    std::vector<bool> inserted(size_t(rank), false);
    for (int64_t a : axes) inserted[size_t(a)] = true;
    Shape out(size_t(rank), 1);
    for (int64_t d = 0, src = 0; d < rank; ++d)
      if (!inserted[size_t(d)]) out[size_t(d)] = x.dim(src++);
    ONYX_ASSIGN_OR_RETURN(Tensor y, x.reshaped(out));
    ctx.set_output(0, Value(std::move(y)));
    return Status::Ok();
  }

 private:
  bool axes_from_input_ = false;
  std::vector<int64_t> axes_attr_;
};

}  // namespace

ONYX_REGISTER_ANY_DEVICE_KERNEL("", "Unsqueeze", 1, kLatestOpset, UnsqueezeKernel, {1});

}  // namespace onyx
