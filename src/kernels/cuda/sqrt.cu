// Sqrt on CUDA: float32 and float16 (elementwise_unary.cuh).
#include "kernels/cuda/elementwise_unary.cuh"

namespace onyx {
namespace {

struct SqrtOp {
  static constexpr const char* kName = "Sqrt";
  __device__ float operator()(float x) const { return sqrtf(x); }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Sqrt", 6, kLatestOpset, CudaUnaryKernel<SqrtOp>, float_or_half, {});

}  // namespace onyx
