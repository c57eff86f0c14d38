// com.microsoft FusedConv on CUDA: Y = activation(conv(X, W) + B + Z), the convolution through
// cuDNN (cudnn_convolution.h) and the bias, residual Z and activation (Relu, Clip, LeakyRelu,
// Sigmoid, Tanh, HardSigmoid; fused_activation.h) in one pass over Y after it.
#include <memory>

#include "kernels/conv_common.h"
#include "kernels/cuda/cudnn_convolution.h"
#include "kernels/fused_activation.h"

namespace onyx {
namespace {

cuda_conv::Activation device_activation(FusedActivation::Kind k) {
  using A = cuda_conv::Activation;
  switch (k) {
    case FusedActivation::Kind::kNone: return A::kNone;
    case FusedActivation::Kind::kRelu: return A::kRelu;
    case FusedActivation::Kind::kClip: return A::kClip;
    case FusedActivation::Kind::kLeakyRelu: return A::kLeakyRelu;
    case FusedActivation::Kind::kSigmoid: return A::kSigmoid;
    case FusedActivation::Kind::kTanh: return A::kTanh;
    case FusedActivation::Kind::kHardSigmoid: return A::kHardSigmoid;
  }
  return A::kNone;
}

class CudaFusedConv final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    WindowAttrs attrs;
    int64_t group = 1;
    ONYX_RETURN_IF_ERROR(parse_conv_attrs(info, &attrs, &group));
    ONYX_ASSIGN_OR_RETURN(FusedActivation a, parse_fused_activation(info));
    activation_.activation = device_activation(a.kind);
    activation_.alpha = a.alpha;
    activation_.beta = a.beta;
    conv_ = std::make_unique<CudnnConvolution>(std::move(attrs), group);
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    return conv_->run(ctx, cuda(), ctx.input(0), ctx.input(1), ctx.has_input(2) ? &ctx.input(2) : nullptr,
                      ctx.has_input(3) ? &ctx.input(3) : nullptr, activation_, "FusedConv");
  }

 private:
  std::unique_ptr<CudnnConvolution> conv_;
  cuda_conv::Epilogue activation_;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "com.microsoft", "FusedConv", 1, kLatestOpset, CudaFusedConv,
                              refuse_for_cudnn_convolution, {});

}  // namespace onyx
