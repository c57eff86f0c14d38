// Xor: C = A != B (exclusive or) elementwise on bool tensors.
// Broadcasting: numpy rules; before opset 7 the 'broadcast'/'axis' attributes.
#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

class XorKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override { return broadcast_.parse(info); }
  Status compute(KernelContext& ctx) const override {
    return compute_binary<true, bool>(ctx, broadcast_,
                                      []<typename T>(const auto& x, const auto& y) { return x != y; });
  }

 private:
  BinaryBroadcast broadcast_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Xor", 1, kLatestOpset, XorKernel);

}  // namespace onyx
