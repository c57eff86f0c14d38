// GlobalMaxPool on CUDA (pool.cuh): float32 and float16, one block per (N, C) plane.
#include "kernels/cuda/pool.cuh"

namespace onyx {
namespace {

class CudaGlobalMaxPool final : public CudaKernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ONYX_RETURN_IF_ERROR(cuda().activate());
    return cuda_pool::run_global_pool<true>(ctx, stream(), "GlobalMaxPool");
  }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "GlobalMaxPool", 1, kLatestOpset, CudaGlobalMaxPool, float_or_half, {});

}  // namespace onyx
