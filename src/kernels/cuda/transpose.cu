// Transpose on CUDA, any element type of 1, 2, 4 or 8 bytes (moved as bytes of that width), up
// to 8 dims; `perm` defaults to reversing the dims.
#include <numeric>

#include "kernels/cuda/strided_copy.cuh"

namespace onyx {
namespace {

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
    ONYX_RETURN_IF_ERROR(
        cuda_copy::launch_strided_gather(x.raw_data(), y->raw_data(), n, 0, d, x.itemsize(), stream(), "Transpose"));
    return check_launch("Transpose");
  }

 private:
  std::vector<int64_t> perm_;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Transpose", 1, kLatestOpset, CudaTranspose, cuda_copy::refuse_strings, {});

}  // namespace onyx
