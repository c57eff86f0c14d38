// Transpose on CUDA, any element type of 1, 2, 4 or 8 bytes (moved as bytes of that width), up
// to 8 dims; `perm` defaults to reversing the dims.
#include <numeric>

#include "kernels/cuda/cuda_kernel.h"

namespace onyx {
namespace {

// Output element i (row-major over d.dims) reads input offset sum(coord[k] * d.strides[0][k]).
template <typename W>
__global__ void permute(const W* x, W* y, int64_t n, DimsAndStrides d) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t rem = i, off = 0;
    for (int k = d.rank - 1; k >= 0; --k) {
      off += (rem % d.dims[k]) * d.strides[0][k];
      rem /= d.dims[k];
    }
    y[i] = x[off];
  }
}

std::string refuses(const KernelQuery& q) {
  if (!q.input_types.empty() && q.input_types[0] == DataType::kString) return "strings stay on the host";
  return "";
}

class CudaTranspose final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    perm_ = info.attr_ints("perm");
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t rank = x.rank();
    std::vector<int64_t> perm = perm_;
    if (perm.empty()) {
      perm.resize(size_t(rank));
      std::iota(perm.rbegin(), perm.rend(), 0);
    }
    if (int64_t(perm.size()) != rank) return invalid_argument("Transpose: perm has ", perm.size(), " entries for ", x.describe());
    std::vector<bool> seen(size_t(rank), false);
    for (int64_t p : perm) {
      if (p < 0 || p >= rank || seen[size_t(p)]) return invalid_argument("Transpose: perm is not a permutation of 0..", rank - 1);
      seen[size_t(p)] = true;
    }
    if (rank > kMaxDims) return not_implemented("CUDA Transpose takes at most ", kMaxDims, " dims");
    Shape out(static_cast<size_t>(rank));
    std::vector<int64_t> in_strides(size_t(rank), 1);
    for (int64_t k = rank - 2; k >= 0; --k) in_strides[size_t(k)] = in_strides[size_t(k + 1)] * x.dim(k + 1);
    DimsAndStrides d;
    d.rank = int(rank);
    for (int64_t k = 0; k < rank; ++k) {
      out[size_t(k)] = x.dim(perm[size_t(k)]);
      d.dims[k] = out[size_t(k)];
      d.strides[0][k] = in_strides[size_t(perm[size_t(k)])];
    }
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), out));
    const int64_t n = x.numel();
    if (n == 0) return Status::Ok();
    ONYX_RETURN_IF_ERROR(cuda().activate());
    const unsigned grid = grid_for(n);
    switch (x.itemsize()) {
      case 1: permute<<<grid, 256, 0, stream()>>>(x.data<uint8_t>(), y->data<uint8_t>(), n, d); break;
      case 2: permute<<<grid, 256, 0, stream()>>>(x.data<uint16_t>(), y->data<uint16_t>(), n, d); break;
      case 4: permute<<<grid, 256, 0, stream()>>>(x.data<uint32_t>(), y->data<uint32_t>(), n, d); break;
      case 8: permute<<<grid, 256, 0, stream()>>>(x.data<uint64_t>(), y->data<uint64_t>(), n, d); break;
      default: return not_implemented("CUDA Transpose of ", data_type_name(x.dtype()));
    }
    return check_launch("Transpose");
  }

 private:
  std::vector<int64_t> perm_;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Transpose", 1, kLatestOpset, CudaTranspose, refuses, {});

}  // namespace onyx
