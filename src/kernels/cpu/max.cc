// Max: elementwise maximum of all inputs; NaN propagates.
// Inputs broadcast together (numpy rules).
#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

class MaxKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    if (info.num_inputs() < 1) return invalid_model("Max needs at least one input");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return compute_variadic<ONYX_NUMERIC_TYPES>(
        ctx, []<typename T>(auto x, auto y) { return max_propagate_nan(x, y); },
        []<typename T>(T*, int64_t) {});
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Max", 1, kLatestOpset, MaxKernel);

}  // namespace onyx
