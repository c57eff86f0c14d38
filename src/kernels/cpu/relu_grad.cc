// ReluGrad (ai.onyx.training, opset 1): the gradient of Relu, for the gradient builder's rule,
// in one pass instead of Greater and Where:
//   inputs  dY, Y (one shape, float32 or float64): Relu's output gradient and its output;
//   output  dX = dY where Y > 0, else 0.
#include <cstdint>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/target_clones.h"

namespace onyx {
namespace {

template <typename T>
inline void relu_grad_span_impl(const T* dy, const T* y, T* dx, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dx[i] = y[i] > T(0) ? dy[i] : T(0);
}
ONYX_TARGET_CLONES void relu_grad_span(const float* dy, const float* y, float* dx, int64_t n) {
  relu_grad_span_impl(dy, y, dx, n);
}
ONYX_TARGET_CLONES void relu_grad_span(const double* dy, const double* y, double* dx, int64_t n) {
  relu_grad_span_impl(dy, y, dx, n);
}

class ReluGradKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& dy = ctx.input(0);
    const Tensor& y = ctx.input(1);
    if (dy.dtype() != y.dtype() || dy.shape() != y.shape() ||
        (y.dtype() != DataType::kFloat && y.dtype() != DataType::kDouble))
      return invalid_argument("ReluGrad: dY and Y must be float32 or float64 of one type and shape; got ",
                              dy.describe(), " and ", y.describe());
    ONYX_ASSIGN_OR_RETURN(Tensor * dx, ctx.allocate_output_uninitialized(0, y.dtype(), y.shape()));
    return dispatch<float, double>(y.dtype(), [&]<typename T>() -> Status {
      const T* a = dy.data<T>();
      const T* b = y.data<T>();
      T* o = dx->data<T>();
      parallel_for(y.numel(), int64_t(1) << 15,
                   [&](int64_t begin, int64_t end) { relu_grad_span(a + begin, b + begin, o + begin, end - begin); });
      return Status::Ok();
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "ReluGrad", 1, kLatestOpset, ReluGradKernel);

}  // namespace onyx
