// CenterCropPad (opset 18): crops or zero-pads input_data to the lengths in input 1 ('shape',
// 1-D int32 / int64) along 'axes' (default: every axis, in order; negative counts from the
// end; one length per axis). Other dims are kept. Per axis, with d = |target - dim|:
//   crop (target < dim): the window starts at floor(d / 2);
//   pad  (target > dim): floor(d / 2) zeros before, the rest (one more when d is odd) after.
// Any element type (string pads with empty strings).
#include <string>
#include <vector>

#include "kernels/element_copy.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class CenterCropPadKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    has_axes_ = info.has_attr("axes");
    axes_ = info.attr_ints("axes");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    if (!ctx.has_input(0) || !ctx.has_input(1)) return invalid_argument("CenterCropPad needs inputs 'input_data' and 'shape'");
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> lengths, read_int_list(ctx.input(1), "shape"));
    std::vector<int64_t> axes = axes_;
    if (!has_axes_)
      for (int64_t d = 0; d < x.rank(); ++d) axes.push_back(d);
    ONYX_ASSIGN_OR_RETURN(axes, normalize_axes(std::move(axes), x.rank()));
    if (lengths.size() != axes.size())
      return invalid_argument("'shape' has ", lengths.size(), " lengths for ", axes.size(), " axes");
    const Shape& in_shape = x.shape();
    Shape out_shape = in_shape;
    const size_t rank = in_shape.size();
    // Per dim: the overlap's length, where it starts in the input and in the output.
    std::vector<int64_t> len(in_shape), in_start(rank, 0), out_start(rank, 0);
    for (size_t k = 0; k < axes.size(); ++k) {
      const size_t a = size_t(axes[k]);
      const int64_t target = lengths[k], dim = in_shape[a];
      if (target < 0) return invalid_argument("'shape' holds a negative length ", target);
      out_shape[a] = target;
      if (target < dim) {
        in_start[a] = (dim - target) / 2;
        len[a] = target;
      } else {
        out_start[a] = (target - dim) / 2;
        len[a] = dim;
      }
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), out_shape));
    if (shape_size(len) == 0) return Status::Ok();
    const std::vector<int64_t> in_strides = shape_strides(in_shape), out_strides = shape_strides(out_shape);
    return dispatch_by_size(x.dtype(), [&]<typename U>() -> Status {
      const U* src = static_cast<const U*>(x.raw_data());
      U* dst = static_cast<U*>(y->raw_data());
      if (rank == 0) {
        dst[0] = src[0];
        return Status::Ok();
      }
      // Walk the overlap's rows (all dims but the last), copying each contiguous row.
      const int64_t row = len[rank - 1];
      const int64_t rows = shape_size(len) / row;
      for (int64_t r = 0; r < rows; ++r) {
        int64_t rest = r, si = in_start[rank - 1], di = out_start[rank - 1];
        for (size_t d = rank - 1; d-- > 0;) {
          const int64_t i = rest % len[d];
          rest /= len[d];
          si += (in_start[d] + i) * in_strides[d];
          di += (out_start[d] + i) * out_strides[d];
        }
        for (int64_t i = 0; i < row; ++i) dst[di + i] = src[si + i];
      }
      return Status::Ok();
    });
  }

 private:
  bool has_axes_ = false;
  std::vector<int64_t> axes_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "CenterCropPad", 18, kLatestOpset, CenterCropPadKernel);

}  // namespace onyx
