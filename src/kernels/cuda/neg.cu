// Neg on CUDA: float32 and float16 (elementwise_unary.cuh).
#include "kernels/cuda/elementwise_unary.cuh"

namespace onyx {
namespace {

struct NegOp {
  static constexpr const char* kName = "Neg";
  __device__ float operator()(float x) const { return -x; }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Neg", 6, kLatestOpset, CudaUnaryKernel<NegOp>, float_or_half, {});

}  // namespace onyx
