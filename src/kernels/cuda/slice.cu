// Slice (opset 10 on: starts, ends, axes, steps as inputs, read on the host) on CUDA, any
// element type but strings: the shared Slice arithmetic (kernels/slice_plan.h), then one
// strided gather.
#include "kernels/cuda/strided_copy.cuh"
#include "kernels/shape_util.h"
#include "kernels/slice_plan.h"

namespace onyx {
namespace {

class CudaSlice final : public CudaKernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> starts, read_int_list(ctx.input(1), "starts"));
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> ends, read_int_list(ctx.input(2), "ends"));
    std::vector<int64_t> axes, steps;
    if (ctx.has_input(3)) {
      ONYX_ASSIGN_OR_RETURN(axes, read_int_list(ctx.input(3), "axes"));
      if (axes.size() != starts.size()) return invalid_argument("Slice: starts, ends, axes and steps must have the same length");
    }
    if (ctx.has_input(4)) {
      ONYX_ASSIGN_OR_RETURN(steps, read_int_list(ctx.input(4), "steps"));
    }
    ONYX_ASSIGN_OR_RETURN(SlicePlan plan, plan_slice(x.shape(), starts, ends, std::move(axes), std::move(steps)));
    if (plan.out_shape.size() > size_t(kMaxDims)) return not_implemented("CUDA Slice takes at most ", kMaxDims, " dims");
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), plan.out_shape));
    const int64_t n = y->numel();
    if (n == 0) return Status::Ok();
    DimsAndStrides d;
    d.rank = int(plan.out_shape.size());
    for (int k = 0; k < d.rank; ++k) {
      d.dims[k] = plan.out_shape[size_t(k)];
      d.strides[0][k] = plan.strides[size_t(k)];
    }
    ONYX_RETURN_IF_ERROR(cuda().activate());
    ONYX_RETURN_IF_ERROR(
        cuda_copy::launch_strided_gather(x.raw_data(), y->raw_data(), n, plan.offset, d, x.itemsize(), stream(), "Slice"));
    return check_launch("Slice");
  }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Slice", 10, kLatestOpset, CudaSlice, cuda_copy::refuse_strings, {1, 2, 3, 4});

}  // namespace onyx
