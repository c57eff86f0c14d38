// Add on CUDA: float32 and float16 with broadcasting (elementwise_binary.cuh).
#include "kernels/cuda/elementwise_binary.cuh"

namespace onyx {
namespace {

struct AddOp {
  static constexpr const char* kName = "Add";
  __device__ float operator()(float a, float b) const { return a + b; }
};

std::string refuses(const KernelQuery& q) { return refuse_unless(q, {DataType::kFloat, DataType::kFloat16}); }

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Add", 7, kLatestOpset, CudaBinaryKernel<AddOp>, refuses, {});

}  // namespace onyx
