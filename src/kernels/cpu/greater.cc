// Greater: C = (A > B) elementwise, as bool.
// Broadcasting: numpy rules; before opset 7 the 'broadcast'/'axis' attributes.
#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

class GreaterKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override { return broadcast_.parse(info); }
  Status compute(KernelContext& ctx) const override {
    return compute_binary<true, ONYX_NUMERIC_TYPES>(
        ctx, broadcast_, []<typename T>(const auto& x, const auto& y) { return x > y; });
  }

 private:
  BinaryBroadcast broadcast_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Greater", 1, kLatestOpset, GreaterKernel);

}  // namespace onyx
