// Erf on CUDA: float32 and float16 (elementwise_unary.cuh).
#include "kernels/cuda/elementwise_unary.cuh"

namespace onyx {
namespace {

struct ErfOp {
  static constexpr const char* kName = "Erf";
  __device__ float operator()(float x) const { return erff(x); }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Erf", 9, kLatestOpset, CudaUnaryKernel<ErfOp>, float_or_half, {});

}  // namespace onyx
