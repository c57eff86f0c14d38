// The convolution of CUDA Conv and FusedConv, through cuDNN: X (N, C, D1..Dr) with r = 1..3,
// W (M, C / group, k1..kr), Y (N, M, out...), all NCHW-ordered and of one type: float32 (FMA
// math, no TF32, so results stay within float32 rounding of the CPU's) or float16 (tensor
// cores, float32 sums). Pads that differ between the two ends of a dim (SAME_UPPER with an
// even kernel, explicit asymmetric pads) are applied by copying X into a zero-padded scratch
// tensor first, since cuDNN pads both ends alike.
//
// Per (X shape, W shape, type) a plan is made once and kept, up to kMaxPlans of them: a cuDNN
// graph-API execution plan (cudnn_conv_plan.h; per call it costs one variant pack, where the
// legacy cudnnConvolutionForward rebuilds its engines), and the legacy descriptors with the
// algorithm cuDNN's heuristics rank first within kMaxWorkspaceBytes, which run where no
// graph engine qualifies, where an operand is not aligned as the plan declares, and with
// ONYX_CUDNN_LEGACY=1 (for measuring one against the other). run() may be called from
// several threads at once.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "kernels/cuda/conv_epilogue.h"
#include "kernels/cuda/cuda_kernel.h"
#include "kernels/spatial.h"

namespace onyx {

class CudnnConvolution {
 public:
  static constexpr size_t kMaxWorkspaceBytes = size_t(512) << 20;
  static constexpr size_t kMaxPlans = 64;

  CudnnConvolution(WindowAttrs attrs, int64_t group) : attrs_(std::move(attrs)), group_(group) {}
  ~CudnnConvolution();

  // Checks X, W and the optional bias [M] and residual (Y's shape) in `e` against each other
  // (INVALID_ARGUMENT naming `op`), allocates Y as output 0 of ctx and queues Y =
  // epilogue(conv(X, W)) on the provider's stream.
  Status run(KernelContext& ctx, const CudaProvider& provider, const Tensor& x, const Tensor& w, const Tensor* bias,
             const Tensor* residual, const cuda_conv::Epilogue& activation, const char* op) const;

 private:
  struct Plan;
  using Key = std::tuple<Shape, Shape, DataType>;
  Result<std::shared_ptr<const Plan>> plan_for(const CudaProvider& provider, const Shape& x, const Shape& w,
                                               DataType type) const;

  WindowAttrs attrs_;
  int64_t group_ = 1;
  mutable std::mutex mu_;
  mutable std::map<Key, std::shared_ptr<const Plan>> plans_;
};

// KernelDef::refuses for Conv and FusedConv: float32 or float16, at most 3 spatial dims where
// kernel_shape says how many.
std::string refuse_for_cudnn_convolution(const KernelQuery& q);

}  // namespace onyx
