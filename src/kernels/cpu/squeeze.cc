// Squeeze: removes size-1 dims, the listed axes (attribute before opset 13, optional input
// from 13) or every size-1 dim when none are given. The output shares the input's buffer.
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class SqueezeKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axes_from_input_ = info.opset() >= 13;
    if (!axes_from_input_ && info.has_attr("axes")) {
      has_axes_attr_ = true;
      axes_attr_ = info.attr_ints("axes");
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<bool> drop(size_t(x.rank()), false);
    bool all = true;
    std::vector<int64_t> axes;
    if (axes_from_input_ && ctx.has_input(1)) {
      ONYX_ASSIGN_OR_RETURN(axes, read_int_list(ctx.input(1), "axes"));
      all = false;
    } else if (has_axes_attr_) {
      axes = axes_attr_;
      all = false;
    }
    if (all) {
      for (int64_t d = 0; d < x.rank(); ++d) drop[size_t(d)] = x.dim(d) == 1;
    } else {
      ONYX_ASSIGN_OR_RETURN(axes, normalize_axes(std::move(axes), x.rank()));
      for (int64_t a : axes) {
        if (x.dim(a) != 1) return invalid_argument("Squeeze: dim ", a, " of ", x.describe(), " is not 1");
        drop[size_t(a)] = true;
      }
    }
    Shape out;
    for (int64_t d = 0; d < x.rank(); ++d)
      if (!drop[size_t(d)]) out.push_back(x.dim(d));
    ONYX_ASSIGN_OR_RETURN(Tensor y, x.reshaped(out));
    ctx.set_output(0, Value(std::move(y)));
    return Status::Ok();
  }

 private:
  bool axes_from_input_ = false;
  bool has_axes_attr_ = false;
  std::vector<int64_t> axes_attr_;
};

}  // namespace

ONYX_REGISTER_ANY_DEVICE_KERNEL("", "Squeeze", 1, kLatestOpset, SqueezeKernel, {1});

}  // namespace onyx
