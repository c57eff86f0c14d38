// Div: C = A / B elementwise. Integers truncate toward zero; x / 0 == 0 (see
// elementwise_binary.h).
// Broadcasting: numpy rules; before opset 7 the 'broadcast'/'axis' attributes.
#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

class DivKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override { return broadcast_.parse(info); }
  Status compute(KernelContext& ctx) const override {
    return compute_binary<false, ONYX_NUMERIC_TYPES>(ctx, broadcast_, []<typename T>(auto x, auto y) {
      if constexpr (is_int_v<T>)
        return safe_div<T>(x, y);
      else
        return x / y;
    });
  }

 private:
  BinaryBroadcast broadcast_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Div", 1, kLatestOpset, DivKernel);

}  // namespace onyx
