// Equal: C = (A == B) elementwise, as bool; numeric, bool and string inputs.
// Broadcasting: numpy rules; before opset 7 the 'broadcast'/'axis' attributes.
#include <string>

#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

class EqualKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override { return broadcast_.parse(info); }
  Status compute(KernelContext& ctx) const override {
    return compute_binary<true, ONYX_NUMERIC_TYPES, bool, std::string>(
        ctx, broadcast_, []<typename T>(const auto& x, const auto& y) { return x == y; });
  }

 private:
  BinaryBroadcast broadcast_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Equal", 1, kLatestOpset, EqualKernel);

}  // namespace onyx
