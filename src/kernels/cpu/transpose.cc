// Transpose: permutes the dims by 'perm' (default: reversed).
#include "kernels/element_copy.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class TransposeKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    has_perm_ = info.has_attr("perm");
    perm_ = info.attr_ints("perm");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t rank = x.rank();
    std::vector<int64_t> perm = perm_;
    if (!has_perm_) {
      perm.resize(size_t(rank));
      for (int64_t d = 0; d < rank; ++d) perm[size_t(d)] = rank - 1 - d;
    }
    if (int64_t(perm.size()) != rank)
      return invalid_argument("Transpose: perm has ", perm.size(), " entries for ", x.describe());
    std::vector<bool> seen(size_t(rank), false);
    for (int64_t p : perm) {
      if (p < 0 || p >= rank || seen[size_t(p)])
        return invalid_argument("Transpose: perm is not a permutation of the dims of ", x.describe());
      seen[size_t(p)] = true;
    }
    const std::vector<int64_t> in_strides = shape_strides(x.shape());
    Shape out_shape(static_cast<size_t>(rank));
    std::vector<int64_t> strides(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) {
      out_shape[size_t(d)] = x.dim(perm[size_t(d)]);
      strides[size_t(d)] = in_strides[size_t(perm[size_t(d)])];
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), out_shape));
    return strided_copy(x, 0, strides, out_shape, *y);
  }

 private:
  bool has_perm_ = false;
  std::vector<int64_t> perm_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Transpose", 1, kLatestOpset, TransposeKernel);

}  // namespace onyx
