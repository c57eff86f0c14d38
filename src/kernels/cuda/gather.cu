// Gather on CUDA, data of any element type but strings (moved as words of their width). The
// indices (int32 or int64) are read on the host (KernelDef::host_inputs), checked against the
// axis and made non-negative there, so a bad index is an INVALID_ARGUMENT naming it, never an
// out-of-bounds read on the device; then they are uploaded once for the gather.
#include "kernels/broadcast.h"
#include "kernels/cuda/strided_copy.cuh"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

// out[(o * count + j) * inner + r] = x[(o * dim + index[j]) * inner + r].
template <typename W>
__global__ void gather_rows(const W* x, const int64_t* index, W* y, int64_t n, int64_t count, int64_t dim,
                            int64_t inner) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = i % inner, j = (i / inner) % count, o = i / (inner * count);
    y[i] = x[(o * dim + index[j]) * inner + r];
  }
}

std::string refuses(const KernelQuery& q) {
  if (std::string why = cuda_copy::refuse_strings(q); !why.empty()) return why;
  return refuse_unless(q, {DataType::kInt64, DataType::kInt32}, {1});
}

class CudaGather final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", 0);
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    if (x.rank() == 0) return invalid_argument("Gather: the data must have rank 1 or more, got ", x.describe());
    ONYX_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, x.rank()));
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> index, read_int_list(indices, "indices"));
    const int64_t dim = x.dim(axis);
    for (size_t j = 0; j < index.size(); ++j) {
      if (index[j] < -dim || index[j] >= dim)
        return invalid_argument("Gather: index ", index[j], " (element ", j, " of the indices) is out of range for axis ",
                                axis, " of ", x.describe());
      if (index[j] < 0) index[j] += dim;
    }
    Shape out(x.shape().begin(), x.shape().begin() + axis);
    out.insert(out.end(), indices.shape().begin(), indices.shape().end());
    out.insert(out.end(), x.shape().begin() + axis + 1, x.shape().end());
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), out));
    const int64_t n = y->numel();
    if (n == 0) return Status::Ok();
    int64_t inner = 1;
    for (int64_t k = axis + 1; k < x.rank(); ++k) inner *= x.dim(k);
    const int64_t count = int64_t(index.size());
    Tensor host(DataType::kInt64, {count});
    std::copy(index.begin(), index.end(), host.data<int64_t>());
    ONYX_ASSIGN_OR_RETURN(Tensor device_index, ctx.allocate_scratch(DataType::kInt64, {count}));
    ONYX_RETURN_IF_ERROR(cuda().activate());
    ONYX_RETURN_IF_ERROR(cuda().copy(host, device_index));  // queued on the stream before the gather
    const int64_t* pi = device_index.data<int64_t>();
    const unsigned grid = grid_for(n);
    switch (x.itemsize()) {
#define ONYX_GATHER_CASE(BYTES, W)                                                                                  \
  case BYTES:                                                                                                       \
    gather_rows<<<grid, 256, 0, stream()>>>(static_cast<const W*>(x.raw_data()), pi, static_cast<W*>(y->raw_data()), n, \
                                            count, dim, inner);                                                     \
    break;
      ONYX_GATHER_CASE(1, uint8_t)
      ONYX_GATHER_CASE(2, uint16_t)
      ONYX_GATHER_CASE(4, uint32_t)
      ONYX_GATHER_CASE(8, uint64_t)
#undef ONYX_GATHER_CASE
      default: return not_implemented("CUDA Gather of ", data_type_name(x.dtype()));
    }
    return check_launch("Gather");
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Gather", 1, kLatestOpset, CudaGather, refuses, {1});

}  // namespace onyx
