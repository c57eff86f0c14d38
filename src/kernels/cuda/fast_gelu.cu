// com.microsoft FastGelu on CUDA: the tanh GELU of X plus its optional bias (input 1),
// float32 and float16 (gelu.cuh).
#include "kernels/cuda/gelu.cuh"

namespace onyx {
namespace {

class CudaFastGelu final : public CudaGeluKernel {
 public:
  Status compute(KernelContext& ctx) const override { return run(ctx, "FastGelu", GeluForm::kTanh, 1); }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "com.microsoft", "FastGelu", 1, kLatestOpset, CudaFastGelu, float_or_half, {});

}  // namespace onyx
