// SliceGrad (ai.onyx.training): the gradient of Slice (opset 10 on) with respect to its data,
// from (dY, shape of X, starts, ends, axes, steps) — Slice's own starts / ends / axes / steps,
// read at run time, so any step (negative too) and dims known only at run time work. dX has X's
// shape and dY's type: zero, with dY written where Slice read each of its elements (a slice
// reads no element twice). Any element type.
#include <cstring>

#include "kernels/kernel.h"
#include "kernels/shape_util.h"
#include "kernels/slice_plan.h"

namespace onyx {
namespace {

class SliceGradKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    if (info.num_inputs() < 4 || !info.has_input(0) || !info.has_input(1) || !info.has_input(2) || !info.has_input(3))
      return invalid_model("SliceGrad takes (dY, X's shape, starts, ends[, axes[, steps]])");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& dy = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> x_shape, read_int_list(ctx.input(1), "X's shape"));
    for (int64_t d : x_shape)
      if (d < 0) return invalid_argument("SliceGrad: X's shape ", shape_to_string(x_shape), " has a negative dim");
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> starts, read_int_list(ctx.input(2), "starts"));
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> ends, read_int_list(ctx.input(3), "ends"));
    std::vector<int64_t> axes, steps;
    if (ctx.has_input(4)) {
      ONYX_ASSIGN_OR_RETURN(axes, read_int_list(ctx.input(4), "axes"));
      if (axes.size() != starts.size()) return invalid_argument("SliceGrad: starts and axes of different lengths");
    }
    if (ctx.has_input(5)) {
      ONYX_ASSIGN_OR_RETURN(steps, read_int_list(ctx.input(5), "steps"));
    }
    ONYX_ASSIGN_OR_RETURN(SlicePlan plan, plan_slice(x_shape, starts, ends, std::move(axes), std::move(steps)));
    if (plan.out_shape != dy.shape())
      return invalid_argument("SliceGrad: dY is ", shape_to_string(dy.shape()), " where the slice gives ",
                              shape_to_string(plan.out_shape));
    if (dy.dtype() == DataType::kString) return not_implemented("SliceGrad of strings");
    ONYX_ASSIGN_OR_RETURN(Tensor * dx, ctx.allocate_output(0, dy.dtype(), x_shape));  // zero-filled
    const int64_t n = dy.numel();
    if (n == 0) return Status::Ok();
    const size_t size = data_type_size(dy.dtype());
    const char* src = static_cast<const char*>(dy.raw_data());
    char* dst = static_cast<char*>(dx->raw_data());
    const size_t rank = plan.out_shape.size();
    std::vector<int64_t> at(rank, 0);
    int64_t offset = plan.offset;
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(dst + size_t(offset) * size, src + size_t(i) * size, size);
      for (size_t k = rank; k-- > 0;) {  // the next coordinate, row-major
        offset += plan.strides[k];
        if (++at[k] < plan.out_shape[k]) break;
        offset -= plan.strides[k] * at[k];
        at[k] = 0;
      }
    }
    return Status::Ok();
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "SliceGrad", 1, kLatestOpset, SliceGradKernel);

}  // namespace onyx
