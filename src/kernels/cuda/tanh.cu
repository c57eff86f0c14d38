// Tanh on CUDA: float32 and float16 (elementwise_unary.cuh).
#include "kernels/cuda/elementwise_unary.cuh"

namespace onyx {
namespace {

struct TanhOp {
  static constexpr const char* kName = "Tanh";
  __device__ float operator()(float x) const { return tanhf(x); }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Tanh", 6, kLatestOpset, CudaUnaryKernel<TanhOp>, float_or_half, {});

}  // namespace onyx
