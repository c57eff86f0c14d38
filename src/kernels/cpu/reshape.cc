// Reshape: same data, new shape. The shape comes from input 1 (opset >= 5) or the 'shape'
// attribute (opset < 5). A 0 copies the input's dim (unless allowzero=1, opset >= 14, where
// it means an empty dim); one -1 is inferred from the remaining size. The output shares
// the input's buffer.
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class ReshapeKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    legacy_ = info.opset() < 5;
    if (legacy_) {
      if (!info.has_attr("shape")) return invalid_model("Reshape needs a 'shape' attribute before opset 5");
      shape_attr_ = info.attr_ints("shape");
    }
    allowzero_ = info.opset() >= 14 && info.attr_int("allowzero", 0) != 0;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> spec;
    if (legacy_) {
      spec = shape_attr_;
    } else {
      ONYX_ASSIGN_OR_RETURN(spec, read_int_list(ctx.input(1), "shape"));
    }
    Shape out(spec.size());
    int64_t infer_at = -1;
    int64_t known = 1;  // product of the explicit dims
    bool has_zero = false;
    for (size_t i = 0; i < spec.size(); ++i) {
      int64_t d = spec[i];
      if (d == -1) {
        if (infer_at >= 0) return invalid_argument("Reshape: shape ", shape_to_string(spec), " has more than one -1");
        infer_at = int64_t(i);
        continue;
      }
      if (d < -1) return invalid_argument("Reshape: invalid dim ", d, " in shape ", shape_to_string(spec));
      if (d == 0) {
        has_zero = true;
        if (!allowzero_) {
          if (int64_t(i) >= x.rank())
            return invalid_argument("Reshape: shape ", shape_to_string(spec), " copies dim ", i, " of ", x.describe());
          d = x.dim(int64_t(i));
        }
      }
      out[i] = d;
      if (d != 0 && known > INT64_MAX / d)
        return invalid_argument("Reshape: shape ", shape_to_string(spec), " is too large");
      known *= d;
    }
    if (allowzero_ && has_zero && infer_at >= 0)
      return invalid_argument("Reshape: shape ", shape_to_string(spec), " has both 0 and -1 with allowzero=1");
    if (infer_at >= 0) {
      if (known == 0 || x.numel() % known != 0)
        return invalid_argument("Reshape: cannot infer the -1 in ", shape_to_string(spec), " for ", x.describe());
      out[size_t(infer_at)] = x.numel() / known;
    }
    ONYX_ASSIGN_OR_RETURN(Tensor y, x.reshaped(out));
    ctx.set_output(0, Value(std::move(y)));
    return Status::Ok();
  }

 private:
  bool legacy_ = false;
  bool allowzero_ = false;
  std::vector<int64_t> shape_attr_;
};

}  // namespace

ONYX_REGISTER_ANY_DEVICE_KERNEL("", "Reshape", 1, kLatestOpset, ReshapeKernel, {1});

}  // namespace onyx
