// MaxPool on CUDA (pool.cuh): float32 and float16, without the Indices output.
#include "kernels/cuda/pool.cuh"

namespace onyx {
namespace {

class CudaMaxPool final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override { return parse_pool_attrs(info, &attrs_); }

 public:
  Status compute(KernelContext& ctx) const override {
    if (ctx.output_requested(1)) return not_implemented("CUDA MaxPool gives no Indices output");
    ONYX_RETURN_IF_ERROR(cuda().activate());
    return cuda_pool::run_window_pool<true>(ctx, attrs_, false, stream(), "MaxPool");
  }

 private:
  WindowAttrs attrs_;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "MaxPool", 1, kLatestOpset, CudaMaxPool, cuda_pool::refuse_pool, {});

}  // namespace onyx
