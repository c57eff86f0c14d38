// com.microsoft BiasGelu on CUDA: the erf GELU of A + B (B over A's last dim), float32 and
// float16 (gelu.cuh).
#include "kernels/cuda/gelu.cuh"

namespace onyx {
namespace {

class CudaBiasGelu final : public CudaGeluKernel {
 public:
  Status compute(KernelContext& ctx) const override { return run(ctx, "BiasGelu", GeluForm::kErf, 1); }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "com.microsoft", "BiasGelu", 1, kLatestOpset, CudaBiasGelu, float_or_half, {});

}  // namespace onyx
