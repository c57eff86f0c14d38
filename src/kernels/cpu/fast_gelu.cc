// com.microsoft FastGelu (contrib op, since 1): Y = gelu_tanh(X + bias), the tanh
// approximation 0.5 * v * (1 + tanh(sqrt(2 / pi) * (v + 0.044715 * v^3))) with v = X + bias.
// bias (optional) is 1-D along X's last dim (which may be 1: broadcast). float32, float16, double.
#include "kernels/gelu_common.h"

namespace onyx {
namespace {

class FastGeluKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return gelu_compute(ctx, GeluKind::kTanh, ctx.input(0), ctx.has_input(1) ? &ctx.input(1) : nullptr);
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "FastGelu", 1, kLatestOpset, FastGeluKernel);

}  // namespace onyx
