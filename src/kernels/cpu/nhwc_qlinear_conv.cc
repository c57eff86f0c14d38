// NhwcQLinearConv (com.microsoft, made by the nhwc_layout pass): QLinearConv with X and Y
// channels-last, X (N, H, W, C) -> Y (N, H', W', M); W stays (M, C/group, kH, kW). Always the
// oneDNN int8 path (qlinear_conv_common.h): the pass makes it only where prepare() can take it.
#include "kernels/kernel.h"
#include "kernels/qlinear_conv_common.h"

namespace onyx {
namespace {

class NhwcQLinearConvKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override { return runner_.prepare(info); }
  Status compute(KernelContext& ctx) const override { return runner_.compute(ctx); }
  std::string implementation() const override { return runner_.implementation() + ", channels-last"; }
  std::vector<int> released_constant_inputs() const override { return runner_.released_constant_inputs(); }

 private:
  QLinearConvRunner runner_{/*channels_last=*/true};
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "NhwcQLinearConv", 1, kLatestOpset, NhwcQLinearConvKernel);

}  // namespace onyx
