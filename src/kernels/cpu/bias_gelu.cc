// com.microsoft BiasGelu (contrib op, since 1): C = gelu(A + B), erf form, where B is 1-D along
// A's last dim (which may be 1: broadcast, C then has the broadcast shape). float32, float16,
// double.
#include "kernels/gelu_common.h"

namespace onyx {
namespace {

class BiasGeluKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    if (!ctx.has_input(1)) return invalid_argument("BiasGelu needs the bias input B");
    return gelu_compute(ctx, GeluKind::kErf, ctx.input(0), &ctx.input(1));
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "BiasGelu", 1, kLatestOpset, BiasGeluKernel);

}  // namespace onyx
