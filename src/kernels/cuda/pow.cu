// Pow on CUDA: float32 and float16 base and exponent of the same type, with broadcasting
// (elementwise_binary.cuh); other type pairs stay on the CPU.
#include "kernels/cuda/elementwise_binary.cuh"

namespace onyx {
namespace {

struct PowOp {
  static constexpr const char* kName = "Pow";
  __device__ float operator()(float a, float b) const { return powf(a, b); }
};

std::string refuses(const KernelQuery& q) {
  if (q.input_types.size() == 2 && q.input_types[0] != q.input_types[1] && q.input_types[1] != DataType::kUndefined)
    return "takes a base and exponent of one type";
  return refuse_unless(q, {DataType::kFloat, DataType::kFloat16});
}

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Pow", 7, kLatestOpset, CudaBinaryKernel<PowOp>, refuses, {});

}  // namespace onyx
