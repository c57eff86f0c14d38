// Tile: repeats the input repeats[d] times along each dim d (opset >= 6: 'repeats' input of
// length rank; opset 1: 'tiles' copies along the 'axis' input).
#include "kernels/element_copy.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class TileKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    legacy_ = info.opset() < 6;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t rank = x.rank();
    std::vector<int64_t> repeats;
    if (legacy_) {
      ONYX_ASSIGN_OR_RETURN(const int64_t tiles, read_int_scalar(ctx.input(1), "tiles"));
      ONYX_ASSIGN_OR_RETURN(int64_t axis, read_int_scalar(ctx.input(2), "axis"));
      if (axis < -rank || axis >= rank)
        return invalid_argument("Tile: axis ", axis, " is out of range for ", x.describe());
      repeats.assign(size_t(rank), 1);
      repeats[size_t(axis < 0 ? axis + rank : axis)] = tiles;
    } else {
      ONYX_ASSIGN_OR_RETURN(repeats, read_int_list(ctx.input(1), "repeats"));
    }
    if (int64_t(repeats.size()) != rank)
      return invalid_argument("Tile: repeats has ", repeats.size(), " entries for ", x.describe());
    // Read the output as [r0, d0, r1, d1, ...] with stride 0 on each repeat dim.
    const std::vector<int64_t> in_strides = shape_strides(x.shape());
    Shape out_shape, view;
    std::vector<int64_t> strides;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t r = repeats[size_t(d)];
      if (r < 0) return invalid_argument("Tile: negative repeat ", r);
      int64_t n = 0;
      if (__builtin_mul_overflow(r, x.dim(d), &n)) return invalid_argument("Tile: output is too large");
      out_shape.push_back(n);
      view.insert(view.end(), {r, x.dim(d)});
      strides.insert(strides.end(), {0, in_strides[size_t(d)]});
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), out_shape));
    return strided_copy(x, 0, strides, view, *y);
  }

 private:
  bool legacy_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Tile", 1, kLatestOpset, TileKernel);

}  // namespace onyx
