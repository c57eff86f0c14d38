// GradAccumulate (ai.onyx.training): a training step's gradient added to what earlier steps
// accumulated, or started afresh:  out = reset ? grad : buffer + grad.
// Inputs buffer and grad of one float type and shape, reset a bool scalar. With reset the
// output is grad itself (an alias: nothing is computed; an output bound elsewhere gets one
// copy); otherwise one pass adds them. The training models end each parameter's gradient with one of these (training_graph.h).
// The output may be written over buffer (Kernel::in_place_outputs): a Module binds it to the
// state's gradient tensor, fed as buffer, so that gradients accumulate in place in memory that
// lives across steps (with reset, grad is copied into it once).
#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class GradAccumulateKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& buffer = ctx.input(0);
    const Tensor& grad = ctx.input(1);
    const Tensor& reset = ctx.input(2);
    if (reset.dtype() != DataType::kBool || reset.numel() != 1)
      return invalid_argument("GradAccumulate: reset must be one bool, got ", reset.describe());
    if (buffer.dtype() != grad.dtype() || buffer.shape() != grad.shape())
      return invalid_argument("GradAccumulate: buffer ", buffer.describe(), " and grad ", grad.describe(), " must match");
    if (*reset.data<bool>()) {
      ctx.set_output(0, Value(grad));
      return Status::Ok();
    }
    ONYX_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(0, grad.dtype(), grad.shape()));
    return dispatch<float, double>(grad.dtype(), [&]<typename T>() -> Status {
      const T* a = buffer.data<T>();
      const T* b = grad.data<T>();
      T* y = out->data<T>();
      parallel_for(grad.numel(), 1 << 16, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) y[i] = a[i] + b[i];
      });
      return Status::Ok();
    });
  }
  std::vector<std::pair<int, int>> in_place_outputs() const override { return {{0, 0}}; }
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "GradAccumulate", 1, kLatestOpset, GradAccumulateKernel);

}  // namespace onyx
