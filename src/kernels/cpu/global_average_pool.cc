// GlobalAveragePool: the mean over all spatial dims of X (N, C, D1..Dn) -> (N, C, 1..1).
#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class GlobalAveragePoolKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) return invalid_argument("input must have rank 2 or more (N, C, ...), got ", x.describe());
    Shape y_shape = x.shape();
    for (size_t d = 2; d < y_shape.size(); ++d) y_shape[d] = 1;
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), y_shape));
    const int64_t planes = x.dim(0) * x.dim(1);
    if (planes == 0) return Status::Ok();
    const int64_t size = x.numel() / planes;
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using CT = compute_t<T>;
      const T* in = x.data<T>();
      T* out = y->data<T>();
      for (int64_t p = 0; p < planes; ++p) {
        CT sum = 0;
        for (int64_t i = 0; i < size; ++i) sum += static_cast<CT>(in[p * size + i]);
        out[p] = static_cast<T>(size > 0 ? sum / static_cast<CT>(size) : CT(0));
      }
      return Status::Ok();
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "GlobalAveragePool", 1, kLatestOpset, GlobalAveragePoolKernel);

}  // namespace onyx
