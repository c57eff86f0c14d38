// QLinearConv: quantised Conv (see qlinear_conv_common.h for the formula and the two paths).
// The output type is y_zero_point's.
#include "kernels/kernel.h"
#include "kernels/qlinear_conv_common.h"

namespace onyx {
namespace {

class QLinearConvKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override { return runner_.prepare(info); }
  Status compute(KernelContext& ctx) const override { return runner_.compute(ctx); }
  std::string implementation() const override { return runner_.implementation(); }
  // Packed weights are never read again: their shape alone plans every run.
  std::vector<int> released_constant_inputs() const override { return runner_.released_constant_inputs(); }

 private:
  QLinearConvRunner runner_{/*channels_last=*/false};
};

}  // namespace

ONYX_REGISTER_KERNEL("", "QLinearConv", 10, kLatestOpset, QLinearConvKernel);

}  // namespace onyx
