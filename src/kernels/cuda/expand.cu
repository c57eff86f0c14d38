// Expand on CUDA, any element type but strings: the input broadcast (numpy rules) to the shape
// its second input gives (read on the host), by one strided gather with stride 0 on broadcast
// dims.
#include "kernels/broadcast.h"
#include "kernels/cuda/strided_copy.cuh"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class CudaExpand final : public CudaKernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, read_int_list(ctx.input(1), "shape"));
    ONYX_ASSIGN_OR_RETURN(Shape out, broadcast_shapes({x.shape(), Shape(dims.begin(), dims.end())}));
    if (out.size() > size_t(kMaxDims)) return not_implemented("CUDA Expand takes at most ", kMaxDims, " dims");
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), out));
    const int64_t n = y->numel();
    if (n == 0) return Status::Ok();
    DimsAndStrides d;
    d.rank = int(out.size());
    const std::vector<int64_t> strides = broadcast_strides(x.shape(), out);
    for (int k = 0; k < d.rank; ++k) {
      d.dims[k] = out[size_t(k)];
      d.strides[0][k] = strides[size_t(k)];
    }
    ONYX_RETURN_IF_ERROR(cuda().activate());
    ONYX_RETURN_IF_ERROR(cuda_copy::launch_strided_gather(x.raw_data(), y->raw_data(), n, 0, d, x.itemsize(), stream(), "Expand"));
    return check_launch("Expand");
  }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Expand", 8, kLatestOpset, CudaExpand, cuda_copy::refuse_strings, {1});

}  // namespace onyx
