// Exp on CUDA: float32 and float16 (elementwise_unary.cuh).
#include "kernels/cuda/elementwise_unary.cuh"

namespace onyx {
namespace {

struct ExpOp {
  static constexpr const char* kName = "Exp";
  __device__ float operator()(float x) const { return expf(x); }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Exp", 6, kLatestOpset, CudaUnaryKernel<ExpOp>, float_or_half, {});

}  // namespace onyx
