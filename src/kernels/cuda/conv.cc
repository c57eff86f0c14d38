// Conv on CUDA through cuDNN (cudnn_convolution.h): Y = conv(X, W) + B, float32 and float16,
// 1 to 3 spatial dims, groups, dilations, strides, explicit or automatic pads.
#include <memory>

#include "kernels/conv_common.h"
#include "kernels/cuda/cudnn_convolution.h"

namespace onyx {
namespace {

class CudaConv final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    WindowAttrs attrs;
    int64_t group = 1;
    ONYX_RETURN_IF_ERROR(parse_conv_attrs(info, &attrs, &group));
    conv_ = std::make_unique<CudnnConvolution>(std::move(attrs), group);
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    return conv_->run(ctx, cuda(), ctx.input(0), ctx.input(1), ctx.has_input(2) ? &ctx.input(2) : nullptr, nullptr,
                      cuda_conv::Epilogue{}, "Conv");
  }

 private:
  std::unique_ptr<CudnnConvolution> conv_;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Conv", 1, kLatestOpset, CudaConv, refuse_for_cudnn_convolution, {});

}  // namespace onyx
