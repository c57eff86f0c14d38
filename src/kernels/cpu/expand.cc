// Expand: broadcasts the input against 'shape' (numpy rules; the output takes the larger of
// each pair of dims).
#include "kernels/broadcast.h"
#include "kernels/element_copy.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class ExpandKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> shape, read_int_list(ctx.input(1), "shape"));
    for (int64_t d : shape)
      if (d < 0) return invalid_argument("Expand: invalid shape ", shape_to_string(shape));
    ONYX_ASSIGN_OR_RETURN(Shape out_shape, broadcast_shapes({x.shape(), shape}));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), out_shape));
    return strided_copy(x, 0, broadcast_strides(x.shape(), out_shape), out_shape, *y);
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Expand", 1, kLatestOpset, ExpandKernel);

}  // namespace onyx
