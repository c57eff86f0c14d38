// GlobalAveragePool on CUDA (pool.cuh): float32 and float16, one block per (N, C) plane.
#include "kernels/cuda/pool.cuh"

namespace onyx {
namespace {

class CudaGlobalAveragePool final : public CudaKernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ONYX_RETURN_IF_ERROR(cuda().activate());
    return cuda_pool::run_global_pool<false>(ctx, stream(), "GlobalAveragePool");
  }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "GlobalAveragePool", 1, kLatestOpset, CudaGlobalAveragePool, float_or_half, {});

}  // namespace onyx
