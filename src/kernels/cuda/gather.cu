// Gather on CUDA, data of any element type but strings (moved as words of their width). The
// indices (int32 or int64) are read on the device, where the data is: a run whose ids live on
// the GPU needs no copy to the host, and can be recorded as a CUDA graph. Negative indices
// count from the end of the axis; an index out of range is never followed (its output slice is
// zeros) and is reported through the provider's device check (CudaProvider::
// register_error_site): the run fails with INVALID_ARGUMENT naming the node at the next wait
// for the device (the copy of an output to the host, or the end of an IoBinding run).
#include "kernels/broadcast.h"
#include "kernels/cuda/strided_copy.cuh"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

// out[(o * count + j) * inner + r] = x[(o * dim + index[j]) * inner + r].
template <typename W, typename I>
__global__ void gather_rows(const W* x, const I* index, W* y, int64_t n, int64_t count, int64_t dim, int64_t inner,
                            int* error_flag, int site) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = i % inner, j = (i / inner) % count, o = i / (inner * count);
    int64_t k = int64_t(index[j]);
    if (k < 0) k += dim;
    if (k < 0 || k >= dim) {
      y[i] = W(0);
      if (r == 0) atomicCAS(error_flag, 0, site);
      continue;
    }
    y[i] = x[(o * dim + k) * inner + r];
  }
}

std::string refuses(const KernelQuery& q) {
  if (std::string why = cuda_copy::refuse_strings(q); !why.empty()) return why;
  return refuse_unless(q, {DataType::kInt64, DataType::kInt32}, {1});
}

template <typename I>
Status launch(const Tensor& x, const I* index, Tensor& y, int64_t count, int64_t dim, int64_t inner, int* flag, int site,
              cudaStream_t stream) {
  const int64_t n = y.numel();
  const unsigned grid = grid_for(n);
  switch (x.itemsize()) {
#define ONYX_GATHER_CASE(BYTES, W)                                                                             \
  case BYTES:                                                                                                  \
    gather_rows<<<grid, 256, 0, stream>>>(static_cast<const W*>(x.raw_data()), index, static_cast<W*>(y.raw_data()), \
                                          n, count, dim, inner, flag, site);                                   \
    break;
    ONYX_GATHER_CASE(1, uint8_t)
    ONYX_GATHER_CASE(2, uint16_t)
    ONYX_GATHER_CASE(4, uint32_t)
    ONYX_GATHER_CASE(8, uint64_t)
#undef ONYX_GATHER_CASE
    default: return not_implemented("CUDA Gather of ", data_type_name(x.dtype()));
  }
  return Status::Ok();
}

class CudaGather final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", 0);
    site_ = cuda().register_error_site("Gather: an index is out of range for the gathered axis in node " +
                                       info.node().label());
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    if (x.rank() == 0) return invalid_argument("Gather: the data must have rank 1 or more, got ", x.describe());
    if (indices.dtype() != DataType::kInt64 && indices.dtype() != DataType::kInt32)
      return invalid_argument("Gather: the indices must be int32 or int64, got ", indices.describe());
    ONYX_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, x.rank()));
    const int64_t dim = x.dim(axis);
    Shape out(x.shape().begin(), x.shape().begin() + axis);
    out.insert(out.end(), indices.shape().begin(), indices.shape().end());
    out.insert(out.end(), x.shape().begin() + axis + 1, x.shape().end());
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), out));
    if (y->numel() == 0) return Status::Ok();
    if (dim == 0)  // every index is out of range of an empty axis
      return invalid_argument("Gather: index out of range for axis ", axis, " of ", x.describe(), " (it is empty)");
    int64_t inner = 1;
    for (int64_t k = axis + 1; k < x.rank(); ++k) inner *= x.dim(k);
    ONYX_RETURN_IF_ERROR(cuda().activate());
    Status launched = indices.dtype() == DataType::kInt64
                          ? launch(x, indices.data<int64_t>(), *y, indices.numel(), dim, inner, cuda().device_error_flag(),
                                   site_, stream())
                          : launch(x, indices.data<int32_t>(), *y, indices.numel(), dim, inner, cuda().device_error_flag(),
                                   site_, stream());
    ONYX_RETURN_IF_ERROR(launched);
    return check_launch("Gather");
  }

 private:
  int64_t axis_ = 0;
  int site_ = 0;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Gather", 1, kLatestOpset, CudaGather, refuses, {});

}  // namespace onyx
