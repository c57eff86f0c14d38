// Add: C = A + B elementwise (integers wrap on overflow).
// Broadcasting: numpy rules; before opset 7 the 'broadcast'/'axis' attributes.
#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

class AddKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override { return broadcast_.parse(info); }
  Status compute(KernelContext& ctx) const override {
    return compute_binary<false, ONYX_NUMERIC_TYPES>(
        ctx, broadcast_, []<typename T>(auto x, auto y) { return wrap_add(x, y); });
  }

 private:
  BinaryBroadcast broadcast_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Add", 1, kLatestOpset, AddKernel);

}  // namespace onyx
