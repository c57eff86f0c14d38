// One forward convolution as a finalized cuDNN graph-API (backend) execution plan: made once
// per shape, then run with each call's pointers. cuDNN 9's legacy cudnnConvolutionForward
// builds its operation graph and ten engine configurations again on every call: 80-130 us
// of host time per convolution on an H100 (bench/RESULTS.md, eighth session), which made
// the CNNs' unrecorded runs host-bound. A finalized plan leaves one variant pack and one
// execute per call.
//
// The plan takes the engine cuDNN's heuristics (mode A) rank first among those that
// finalize, fit `max_workspace`, keep the arithmetic of the legacy path (float32 without
// tensor cores, no TF32; float16 with float32 sums) and are compiled ahead (no NVRTC at the
// first run). X, W and Y are dense NCHW-ordered of
// one type; pads are symmetric (the caller pads asymmetric ones first). Thread-compatible:
// make and run under the provider's library lock, on the handle the plan was made with.
#pragma once
#include <cudnn.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/status.h"

namespace onyx {

class CudnnConvPlan {
 public:
  struct Shape {
    std::vector<int64_t> x, w, y;  // (N, C, spatial...), (M, C / group, kernel...), (N, M, out...)
    std::vector<int64_t> pads, strides, dilations;  // per spatial dim
    bool half = false;        // float16 data (else float32)
    bool accumulate = false;  // Y += conv (beta 1), else Y = conv
  };

  // NOT_IMPLEMENTED when no engine qualifies (the caller then uses the legacy call);
  // other errors as cuDNN reports them.
  static Result<std::unique_ptr<CudnnConvPlan>> make(cudnnHandle_t handle, const Shape& shape, size_t max_workspace);
  ~CudnnConvPlan();
  CudnnConvPlan(const CudnnConvPlan&) = delete;
  CudnnConvPlan& operator=(const CudnnConvPlan&) = delete;

  size_t workspace_bytes() const { return workspace_bytes_; }
  // Whether the plan may read and write these addresses: every operand aligned as the plan's
  // tensors declare (kAlignment bytes).
  static bool aligned(const void* x, const void* w, const void* y);
  // Queues the convolution on the handle's stream; `workspace` holds workspace_bytes().
  Status run(cudnnHandle_t handle, const void* x, const void* w, void* y, void* workspace) const;

  // Plans made in this process (for tests that must see the graph path taken).
  static int64_t plans_made();

  static constexpr int64_t kAlignment = 16;

 private:
  CudnnConvPlan() = default;
  cudnnBackendDescriptor_t plan_ = nullptr;
  size_t workspace_bytes_ = 0;
};

}  // namespace onyx
