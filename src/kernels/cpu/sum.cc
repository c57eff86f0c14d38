// Sum: elementwise sum of all inputs (integers wrap on overflow).
// Inputs broadcast together (numpy rules).
#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

class SumKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    if (info.num_inputs() < 1) return invalid_model("Sum needs at least one input");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return compute_variadic<ONYX_NUMERIC_TYPES>(
        ctx, []<typename T>(auto x, auto y) { return wrap_add(x, y); }, []<typename T>(T*, int64_t) {});
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Sum", 1, kLatestOpset, SumKernel);

}  // namespace onyx
