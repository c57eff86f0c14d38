// The CUDA execution provider: one device, one stream, cuBLAS(Lt) handles, a caching device
// arena, and copies through pinned host staging.
//
// Made by name ("CUDA" or "CUDAExecutionProvider") with options:
//   device_id      the device ordinal (default 0)
//   gpu_mem_limit  bytes the arena may hold, in use and cached together (default: no cap)
//   enable_cuda_graph  1 to record runs bound through IoBinding as CUDA graphs and replay
//                  them (session/run_capture.h); 0 by default
// It is an error to ask for it where no device or driver is usable (never a fallback).
//
// Kernels run on the provider's stream in the order they are called; a copy to the host
// waits for the stream, so an output returned to the caller is complete. Several runs may
// share the provider at once: their kernels interleave on the one stream, each run's in order.
#pragma once
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#ifdef ONYX_WITH_CUDNN  // defined for the CUDA provider's own units where cuDNN was found
#include <cudnn.h>
#endif

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "providers/execution_provider.h"

struct cudnnContext;  // cudnnHandle_t is a cudnnContext*

namespace onyx {

class CudaArena;

// A CUDA runtime error as a Status naming what was being done ("cudaMemcpyAsync: ...").
Status cuda_status(cudaError_t e, const char* what);
Status cublas_status(cublasStatus_t s, const char* what);

#define ONYX_CUDA_RETURN_IF_ERROR(call) ONYX_RETURN_IF_ERROR(::onyx::cuda_status((call), #call))
#define ONYX_CUBLAS_RETURN_IF_ERROR(call) ONYX_RETURN_IF_ERROR(::onyx::cublas_status((call), #call))
#ifdef ONYX_WITH_CUDNN
Status cudnn_status(cudnnStatus_t s, const char* what);
#define ONYX_CUDNN_RETURN_IF_ERROR(call) ONYX_RETURN_IF_ERROR(::onyx::cudnn_status((call), #call))
#endif

class CudaProvider final : public ExecutionProvider {
 public:
  // NOT_IMPLEMENTED-free: RUNTIME_ERROR when no device or driver is usable, INVALID_ARGUMENT
  // for an unknown option or a bad value.
  static Result<std::shared_ptr<ExecutionProvider>> create(const ProviderOptions& options);
  // How many CUDA devices this process can use (0 without a device or driver), and why not
  // when none ("no CUDA-capable device is detected").
  static int device_count(std::string* why_none = nullptr);
  ~CudaProvider() override;

  std::string name() const override { return "CUDA"; }
  Device device() const override { return Device{Device::Type::kCuda, device_id_}; }
  std::string description() const override { return description_; }
  Allocator* allocator() override;
  Status copy(const Tensor& src, Tensor& dst) const override;
  Status synchronize() const override;
  Status synchronize_default_stream() const override;
  Status synchronize_foreign_stream(uintptr_t stream) const override;
  Status shrink_memory() override;
  bool captures_runs() const override { return capture_runs_; }
  std::vector<std::string> options_not_acted_on() const override { return not_acted_on_; }
  Status begin_capture() override;
  Result<std::unique_ptr<CapturedRun>> end_capture(bool keep) override;

  int device_id() const { return device_id_; }
  cudaStream_t stream() const { return stream_; }
  // Makes the provider's device current on the calling thread; kernels call it first.
  Status activate() const;
  // cuBLAS handles bound to the stream. A handle is not for two threads at once: hold the
  // lock while using them.
  std::unique_lock<std::mutex> lock_blas() const { return std::unique_lock<std::mutex>(blas_mu_); }
  cublasHandle_t cublas() const { return cublas_; }
  cublasLtHandle_t cublas_lt() const { return cublas_lt_; }
  // The cuDNN handle bound to the stream, made on the first call (loading cuDNN takes a
  // while, and a model without convolutions never needs it). Call and use under lock_blas().
  // Defined only in builds with cuDNN (ONYX_WITH_CUDNN).
  Result<cudnnContext*> cudnn() const;
  // Checks made on the device (an index out of range): a kernel registers what it checks once
  // (register_error_site, at prepare: "Gather: index out of range in node 'g' (Gather)"), and
  // its device code writes the returned number into *device_error_flag() (atomicCAS from 0)
  // when the check fails. The next synchronize() or copy to the host finds it, returns
  // INVALID_ARGUMENT with that text, and clears it. Under concurrent runs on one provider it
  // may be another run's wait that reports it.
  int register_error_site(const std::string& what) const;
  int* device_error_flag() const { return device_error_flag_; }

  // Scratch for cuBLASLt, kWorkspaceBytes on the device; use under lock_blas().
  void* blas_workspace() const { return workspace_; }
  static constexpr size_t kWorkspaceBytes = size_t(32) << 20;

 private:
  CudaProvider() = default;
  Status init(int device_id, size_t mem_limit);
  // A host -> device copy while recording: the bytes go into a pinned block of their own that
  // the recording keeps, and the recorded copy reads that block.
  Status copy_while_recording(const void* src, void* dst, size_t bytes) const;
  // The failed device check reported since the last call, as a Status (the stream's work must
  // be done); clears it.
  Status take_device_error() const;
  // Host <-> device through the pinned staging buffers (both directions chunked and overlapped).
  Status copy_through_staging(const void* src, void* dst, size_t bytes, bool to_device) const;

  int device_id_ = 0;
  std::string description_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  cublasLtHandle_t cublas_lt_ = nullptr;
  void* workspace_ = nullptr;
  mutable cudnnContext* cudnn_ = nullptr;  // guarded by blas_mu_
  std::unique_ptr<CudaArena> arena_;
  mutable std::mutex blas_mu_;
  // Two pinned buffers of kStagingBytes and their events, used by one copy at a time.
  static constexpr size_t kStagingBytes = size_t(8) << 20;
  mutable std::mutex staging_mu_;
  mutable void* staging_[2] = {nullptr, nullptr};
  mutable cudaEvent_t staged_[2] = {nullptr, nullptr};
  // Mapped pinned host memory the device writes a failed check's site number into.
  int* host_error_flag_ = nullptr;
  int* device_error_flag_ = nullptr;
  mutable std::mutex sites_mu_;
  mutable std::vector<std::string> error_sites_;
  // Recording (enable_cuda_graph). Between begin_capture and end_capture the session runs
  // nothing else on this provider; recording_pinned_ collects copy_while_recording's blocks.
  bool capture_runs_ = false;
  std::vector<std::string> not_acted_on_;  // ONNX Runtime's options onyx accepts and ignores
  std::atomic<bool> recording_{false};
  mutable std::vector<std::shared_ptr<void>> recording_pinned_;
};

}  // namespace onyx
