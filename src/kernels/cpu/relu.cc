// Relu: y = max(x, 0), elementwise.
#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class ReluKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), x.shape()));
    return dispatch<ONYX_FLOAT_TYPES, ONYX_SIGNED_INT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      const T* in = x.data<T>();
      T* out = y->data<T>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        const compute_t<T> v = static_cast<compute_t<T>>(in[i]);
        out[i] = static_cast<T>(v > 0 ? v : compute_t<T>(0));
      }
      return Status::Ok();
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Relu", 1, kLatestOpset, ReluKernel);

}  // namespace onyx
