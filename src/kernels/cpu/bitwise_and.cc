// BitwiseAnd (opset 18): z = x & y on integer tensors of one type, elementwise with numpy
// broadcasting.
#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

class BitwiseAndKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override { return broadcast_.parse(info); }
  Status compute(KernelContext& ctx) const override {
    return compute_binary<false, ONYX_INT_TYPES>(ctx, broadcast_,
                                                 []<typename T>(T x, T y) { return T(x & y); });
  }

 private:
  BinaryBroadcast broadcast_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "BitwiseAnd", 18, kLatestOpset, BitwiseAndKernel);

}  // namespace onyx
