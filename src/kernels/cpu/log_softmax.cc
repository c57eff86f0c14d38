// LogSoftmax: Y = X - max - log(sum(exp(X - max))) along the axis (see softmax_common.h).
#include "kernels/kernel.h"
#include "kernels/softmax_common.h"

namespace onyx {
namespace {

class LogSoftmaxKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    opset_ = info.opset();
    axis_ = info.attr_int("axis", default_softmax_axis(opset_));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return compute_softmax(ctx, SoftmaxKind::kLogSoftmax, axis_, opset_);
  }

 private:
  int64_t opset_ = 13;
  int64_t axis_ = -1;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "LogSoftmax", 1, kLatestOpset, LogSoftmaxKernel);

}  // namespace onyx
