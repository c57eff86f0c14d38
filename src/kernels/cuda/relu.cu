// Relu on CUDA: float32 and float16 (elementwise_unary.cuh).
#include "kernels/cuda/elementwise_unary.cuh"

namespace onyx {
namespace {

struct ReluOp {
  static constexpr const char* kName = "Relu";
  __device__ float operator()(float x) const { return x > 0.f ? x : 0.f; }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Relu", 6, kLatestOpset, CudaUnaryKernel<ReluOp>, float_or_half, {});

}  // namespace onyx
