// Min: elementwise minimum of all inputs; NaN propagates.
// Inputs broadcast together (numpy rules).
#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

class MinKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    if (info.num_inputs() < 1) return invalid_model("Min needs at least one input");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return compute_variadic<ONYX_NUMERIC_TYPES>(
        ctx, []<typename T>(auto x, auto y) { return min_propagate_nan(x, y); },
        []<typename T>(T*, int64_t) {});
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Min", 1, kLatestOpset, MinKernel);

}  // namespace onyx
