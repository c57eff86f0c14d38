// com.microsoft QuickGelu on CUDA: x * sigmoid(alpha * x) (alpha default 1.702), float32 and
// float16 (gelu.cuh).
#include "kernels/cuda/gelu.cuh"

namespace onyx {
namespace {

class CudaQuickGelu final : public CudaGeluKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 1.702f);
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override { return run(ctx, "QuickGelu", GeluForm::kQuick, -1, alpha_); }

 private:
  float alpha_ = 1.702f;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "com.microsoft", "QuickGelu", 1, kLatestOpset, CudaQuickGelu, float_or_half, {});

}  // namespace onyx
