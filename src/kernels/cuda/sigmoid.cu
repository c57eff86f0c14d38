// Sigmoid on CUDA: float32 and float16 (elementwise_unary.cuh).
#include "kernels/cuda/elementwise_unary.cuh"

namespace onyx {
namespace {

struct SigmoidOp {
  static constexpr const char* kName = "Sigmoid";
  __device__ float operator()(float x) const { return 1.f / (1.f + expf(-x)); }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Sigmoid", 6, kLatestOpset, CudaUnaryKernel<SigmoidOp>, float_or_half, {});

}  // namespace onyx
