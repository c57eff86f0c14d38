// Mean: elementwise mean of all inputs (floating point).
// Inputs broadcast together (numpy rules).
#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

class MeanKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    if (info.num_inputs() < 1) return invalid_model("Mean needs at least one input");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return compute_variadic<ONYX_FLOAT_TYPES>(
        ctx, []<typename T>(auto x, auto y) { return x + y; },
        [&]<typename T>(T* out, int64_t n) {
          const compute_t<T> count = static_cast<compute_t<T>>(ctx.num_inputs());
          for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(static_cast<compute_t<T>>(out[i]) / count);
        });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Mean", 1, kLatestOpset, MeanKernel);

}  // namespace onyx
