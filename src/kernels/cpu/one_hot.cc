// OneHot: inserts a dim of size depth at 'axis'; position d along it holds values[1] (on)
// where indices == d and values[0] (off) elsewhere. Negative indices count from depth;
// indices outside [-depth, depth) give all-off rows.
#include <cmath>

#include "kernels/element_copy.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class OneHotKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", -1);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& indices = ctx.input(0);
    const Tensor& depth_t = ctx.input(1);
    const Tensor& values = ctx.input(2);
    if (depth_t.numel() != 1 || depth_t.dtype() == DataType::kString)
      return invalid_argument("OneHot: depth must be a numeric scalar, got ", depth_t.describe());
    const double depth_d = depth_t.get_double(0);
    if (!(depth_d >= 1 && depth_d < double(int64_t(1) << 40)))
      return invalid_argument("OneHot: invalid depth ", depth_d);
    const int64_t depth = int64_t(depth_d);
    if (values.numel() != 2) return invalid_argument("OneHot: values must hold [off, on], got ", values.describe());
    if (indices.dtype() == DataType::kString || indices.dtype() == DataType::kBool)
      return invalid_argument("OneHot: indices must be numeric, got ", indices.describe());

    const int64_t rank = indices.rank() + 1;
    int64_t axis = axis_;
    if (axis < -rank || axis >= rank)
      return invalid_argument("OneHot: axis ", axis_, " is out of range for rank ", rank);
    if (axis < 0) axis += rank;
    Shape out_shape = indices.shape();
    out_shape.insert(out_shape.begin() + axis, depth);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, values.dtype(), out_shape));
    int64_t inner = 1;
    for (int64_t d = axis; d < indices.rank(); ++d) inner *= indices.dim(d);
    const bool float_indices = is_float_type(indices.dtype());
    return dispatch_by_size(values.dtype(), [&]<typename U>() -> Status {
      const U off = values.data<U>()[0], on = values.data<U>()[1];
      U* out = y->data<U>();
      for (int64_t i = 0; i < y->numel(); ++i) out[i] = off;
      for (int64_t i = 0; i < indices.numel(); ++i) {
        int64_t k = 0;
        if (float_indices) {
          const double v = std::trunc(indices.get_double(i));
          if (!(v >= -double(depth) && v < double(depth))) continue;
          k = int64_t(v);
        } else {
          k = indices.get_int64(i);
          if (k < -depth || k >= depth) continue;
        }
        if (k < 0) k += depth;
        const int64_t o = i / inner, in = i % inner;
        out[(o * depth + k) * inner + in] = on;
      }
      return Status::Ok();
    });
  }

 private:
  int64_t axis_ = -1;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "OneHot", 1, kLatestOpset, OneHotKernel);

}  // namespace onyx
