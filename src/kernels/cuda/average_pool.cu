// AveragePool on CUDA (pool.cuh): float32 and float16, count_include_pad honoured.
#include "kernels/cuda/pool.cuh"

namespace onyx {
namespace {

class CudaAveragePool final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    count_include_pad_ = info.attr_int("count_include_pad", 0) != 0;
    return parse_pool_attrs(info, &attrs_);
  }

 public:
  Status compute(KernelContext& ctx) const override {
    ONYX_RETURN_IF_ERROR(cuda().activate());
    return cuda_pool::run_window_pool<false>(ctx, attrs_, count_include_pad_, stream(), "AveragePool");
  }

 private:
  WindowAttrs attrs_;
  bool count_include_pad_ = false;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "AveragePool", 1, kLatestOpset, CudaAveragePool, cuda_pool::refuse_pool, {});

}  // namespace onyx
