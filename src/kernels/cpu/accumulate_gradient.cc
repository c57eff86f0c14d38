// AccumulateGradient (ai.onyx.training, opset 1): a training model's gradient accumulation in
// one kernel (it was an Add and a Where over every parameter's size, 20 ms of ResNet-18's
// step):
//   inputs  buffer, G (one shape, float32 or float64), reset (one bool);
//   output  reset ? G : buffer + G.
// With reset the output is G itself (the same tensor, no copy); otherwise one parallel pass.
#include <cstdint>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/target_clones.h"

namespace onyx {
namespace {

template <typename T>
inline void add_span_impl(const T* a, const T* b, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}
ONYX_TARGET_CLONES void add_span(const float* a, const float* b, float* out, int64_t n) { add_span_impl(a, b, out, n); }
ONYX_TARGET_CLONES void add_span(const double* a, const double* b, double* out, int64_t n) {
  add_span_impl(a, b, out, n);
}

class AccumulateGradientKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& buffer = ctx.input(0);
    const Tensor& g = ctx.input(1);
    const Tensor& reset = ctx.input(2);
    if (reset.dtype() != DataType::kBool || reset.numel() != 1)
      return invalid_argument("AccumulateGradient: reset must be one bool, got ", reset.describe());
    if (buffer.dtype() != g.dtype() || buffer.shape() != g.shape() ||
        (g.dtype() != DataType::kFloat && g.dtype() != DataType::kDouble))
      return invalid_argument("AccumulateGradient: buffer and G must be float32 or float64 of one type and shape; got ",
                              buffer.describe(), " and ", g.describe());
    if (reset.data<bool>()[0]) {
      ctx.set_output(0, ctx.input_value(1));
      return Status::Ok();
    }
    ONYX_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(0, g.dtype(), g.shape()));
    return dispatch<float, double>(g.dtype(), [&]<typename T>() -> Status {
      const T* a = buffer.data<T>();
      const T* b = g.data<T>();
      T* o = out->data<T>();
      parallel_for(g.numel(), int64_t(1) << 15,
                   [&](int64_t begin, int64_t end) { add_span(a + begin, b + begin, o + begin, end - begin); });
      return Status::Ok();
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "AccumulateGradient", 1, kLatestOpset, AccumulateGradientKernel);

}  // namespace onyx
