// Gelu on CUDA: com.microsoft Gelu (the erf form) and ai.onnx Gelu-20 (approximate "none" or
// "tanh"), float32 and float16 (gelu.cuh).
#include "kernels/cuda/gelu.cuh"

namespace onyx {
namespace {

class CudaGelu final : public CudaGeluKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    const std::string approximate = info.attr_string("approximate", "none");
    if (approximate != "none" && approximate != "tanh")
      return invalid_model("Gelu: approximate must be 'none' or 'tanh', got '", approximate, "'");
    form_ = approximate == "tanh" ? GeluForm::kTanh : GeluForm::kErf;
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override { return run(ctx, "Gelu", form_, -1); }

 private:
  GeluForm form_ = GeluForm::kErf;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "com.microsoft", "Gelu", 1, kLatestOpset, CudaGelu, float_or_half, {});
ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Gelu", 20, kLatestOpset, CudaGelu, float_or_half, {});

}  // namespace onyx
