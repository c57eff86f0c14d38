// What CUDA kernels share: the base class that finds the provider (stream, cuBLAS handles,
// device memory), type checks for KernelDef::refuses, launch sizes, and the shape
// descriptions device code indexes with.
//
// A CUDA kernel's compute() queues work on the provider's stream and returns; its outputs
// and scratch come from the device arena through the KernelContext (the plan set it).
// Launch errors are checked right after each launch.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <initializer_list>
#include <string>

#include "kernels/kernel.h"
#include "providers/cuda/cuda_provider.h"

namespace onyx {

class CudaKernel : public Kernel {
 public:
  Status prepare(const KernelInfo& info) final;

 protected:
  // The op's own prepare (attributes); the provider is known by then.
  virtual Status prepare_cuda(const KernelInfo& info) { (void)info; return Status::Ok(); }
  const CudaProvider& cuda() const { return *provider_; }
  cudaStream_t stream() const { return provider_->stream(); }

 public:
  // RUNTIME_ERROR naming `what` if the last launch failed.
  static Status check_launch(const char* what);

 private:
  const CudaProvider* provider_ = nullptr;
};

// KernelDef::refuses helpers. `inputs` lists the input indices whose element type must be
// one of `allowed` (all inputs when empty); an unknown type is accepted (checked at run).
std::string refuse_unless(const KernelQuery& q, std::initializer_list<DataType> allowed,
                          std::initializer_list<int> inputs = {});
inline std::string float_or_half(const KernelQuery& q) { return refuse_unless(q, {DataType::kFloat, DataType::kFloat16}, {0}); }

// INVALID_ARGUMENT / NOT_IMPLEMENTED unless `t` is float32 or float16 (for compute()).
Status expect_float_or_half(const Tensor& t, const char* op, int input);

// Blocks for `n` elements at `threads` per block, capped so the grid stays valid; kernels
// loop with a grid stride.
inline unsigned int grid_for(int64_t n, int threads = 256) {
  const int64_t blocks = (n + threads - 1) / threads;
  return unsigned(blocks < 1 ? 1 : blocks > 65535 * 32 ? 65535 * 32 : blocks);
}

// Up to kMaxDims dims and, per operand, element strides (0 where broadcast), passed by value
// to device code.
constexpr int kMaxDims = 8;
struct DimsAndStrides {
  int rank = 0;
  int64_t dims[kMaxDims] = {};
  int64_t strides[3][kMaxDims] = {};
};

}  // namespace onyx
