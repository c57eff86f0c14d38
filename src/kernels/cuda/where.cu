// Where on CUDA: condition (bool) ? X : Y with three-way numpy broadcasting, X and Y of any
// one element type but strings (moved as words of their width).
#include "kernels/broadcast.h"
#include "kernels/cuda/strided_copy.cuh"

namespace onyx {
namespace {

template <typename W>
__global__ void where_select(const bool* c, const W* x, const W* y, W* out, int64_t n, DimsAndStrides d) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t rem = i, oc = 0, ox = 0, oy = 0;
    for (int k = d.rank - 1; k >= 0; --k) {
      const int64_t q = rem % d.dims[k];
      rem /= d.dims[k];
      oc += q * d.strides[0][k];
      ox += q * d.strides[1][k];
      oy += q * d.strides[2][k];
    }
    out[i] = c[oc] ? x[ox] : y[oy];
  }
}

std::string refuses(const KernelQuery& q) {
  if (std::string why = cuda_copy::refuse_strings(q); !why.empty()) return why;
  return refuse_unless(q, {DataType::kBool}, {0});
}

class CudaWhere final : public CudaKernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& c = ctx.input(0);
    const Tensor& x = ctx.input(1);
    const Tensor& y = ctx.input(2);
    if (c.dtype() != DataType::kBool) return invalid_argument("Where: the condition must be bool, got ", c.describe());
    if (x.dtype() != y.dtype()) return invalid_argument("Where: X is ", x.describe(), " but Y is ", y.describe());
    ONYX_ASSIGN_OR_RETURN(Shape out, broadcast_shapes({c.shape(), x.shape(), y.shape()}));
    if (out.size() > size_t(kMaxDims)) return not_implemented("CUDA Where takes at most ", kMaxDims, " dims");
    ONYX_ASSIGN_OR_RETURN(Tensor * z, ctx.allocate_output_uninitialized(0, x.dtype(), out));
    const int64_t n = z->numel();
    if (n == 0) return Status::Ok();
    DimsAndStrides d;
    d.rank = int(out.size());
    const Shape* shapes[3] = {&c.shape(), &x.shape(), &y.shape()};
    for (int j = 0; j < 3; ++j) {
      const std::vector<int64_t> s = broadcast_strides(*shapes[j], out);
      for (int k = 0; k < d.rank; ++k) d.strides[j][k] = s[size_t(k)];
    }
    for (int k = 0; k < d.rank; ++k) d.dims[k] = out[size_t(k)];
    const bool* pc = c.data<bool>();
    const unsigned grid = grid_for(n);
    ONYX_RETURN_IF_ERROR(cuda().activate());
    switch (x.itemsize()) {
#define ONYX_WHERE_CASE(BYTES, W)                                                                            \
  case BYTES:                                                                                                \
    where_select<<<grid, 256, 0, stream()>>>(pc, static_cast<const W*>(x.raw_data()), static_cast<const W*>(y.raw_data()), \
                                       static_cast<W*>(z->raw_data()), n, d);                               \
    break;
      ONYX_WHERE_CASE(1, uint8_t)
      ONYX_WHERE_CASE(2, uint16_t)
      ONYX_WHERE_CASE(4, uint32_t)
      ONYX_WHERE_CASE(8, uint64_t)
#undef ONYX_WHERE_CASE
      default: return not_implemented("CUDA Where of ", data_type_name(x.dtype()));
    }
    return check_launch("Where");
  }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Where", 9, kLatestOpset, CudaWhere, refuses, {});

}  // namespace onyx
