// BitwiseNot (opset 18): y = ~x elementwise on integer tensors.
#include "kernels/unary.h"

namespace onyx {
namespace {

class BitwiseNotKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, unary_input(ctx));
    return dispatch<ONYX_INT_TYPES>(x->dtype(), [&]<typename T>() -> Status {
      ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x->dtype(), x->shape()));
      const T* in = x->data<T>();
      T* out = y->data<T>();
      for (int64_t i = 0; i < x->numel(); ++i) out[i] = T(~in[i]);
      return Status::Ok();
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "BitwiseNot", 18, kLatestOpset, BitwiseNotKernel);

}  // namespace onyx
