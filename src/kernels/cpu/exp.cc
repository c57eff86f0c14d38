// Exp: y = e^x, elementwise. float32 uses the vectorised exp (vector_math.h, 1 ulp).
#include <cmath>

#include "core/parallel.h"
#include "kernels/unary.h"
#include "kernels/vector_math.h"

namespace onyx {
namespace {

class ExpKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    if (ctx.has_input(0) && ctx.input_value(0).is_tensor() && ctx.input(0).dtype() == DataType::kFloat) {
      const Tensor& x = ctx.input(0);
      ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
      const float* in = x.data<float>();
      float* out = y->data<float>();
      parallel_for(x.numel(), int64_t(1) << 14, [&](int64_t begin, int64_t end) { vec::exp(in + begin, out + begin, end - begin); });
      return Status::Ok();
    }
    return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::exp(x); });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Exp", 1, kLatestOpset, ExpKernel);

}  // namespace onyx
