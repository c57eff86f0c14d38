// ExecutionProvider: a place where kernels run (the CPU, a CUDA device), with the memory its
// kernels write and the copies that move tensors to and from it.
//
// A session is given providers in priority order (SessionOptions::providers); the planner
// (session/placement.h) puts each node of the main graph on the first provider with a kernel
// that accepts it, on the CPU otherwise, and inserts copies where a value crosses devices.
// Providers are made by name through ProviderRegistry; a provider that cannot run here (built
// without its toolkit, no device, no driver) is an error when it is asked for, never a silent
// fallback to the CPU.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/status.h"
#include "core/tensor.h"

namespace onyx {

// Options of one provider, as strings (ONNX Runtime's provider_options: "device_id",
// "gpu_mem_limit", ...). Each provider names the keys it takes and refuses the others.
using ProviderOptions = std::map<std::string, std::string>;

// The work one run queued on a provider, recorded once (a CUDA graph) and replayed as a whole:
// the same kernels on the same memory, with none of the run's host work. It owns every
// buffer the provider handed out while recording, so nothing else is given that memory while
// the recording lives. Made by ExecutionProvider::end_capture.
class CapturedRun {
 public:
  virtual ~CapturedRun() = default;
  // Queues the recorded work once more, in order, on the provider's stream; it reads the
  // buffers the recorded run read and writes the ones it wrote.
  virtual Status replay() = 0;
};

class ExecutionProvider {
 public:
  virtual ~ExecutionProvider() = default;
  // The registry name ("CPU", "CUDA"): what KernelDef::provider says for its kernels.
  virtual std::string name() const = 0;
  // Where the tensors its kernels produce live.
  virtual Device device() const = 0;
  // What it is, for reports ("CUDA device 0: NVIDIA H100, compute 9.0, 80 GB").
  virtual std::string description() const { return name(); }
  // Options the caller gave that this provider accepts (ONNX Runtime takes them) but does not
  // act on, as "key=value"; the session reports them in one warning.
  virtual std::vector<std::string> options_not_acted_on() const { return {}; }
  // The memory its kernels' outputs and scratch come from, shared by all runs (thread-safe),
  // or null for the CPU, whose kernels use the run's arena.
  virtual Allocator* allocator() { return nullptr; }
  // Copies the bytes of `src` into `dst` (same dtype and element count; each on the host or on
  // this provider's device) and returns when `dst` holds them. Strings never leave the host.
  virtual Status copy(const Tensor& src, Tensor& dst) const = 0;
  // Waits until the work this provider's kernels queued has finished (no-op for the CPU).
  virtual Status synchronize() const { return Status::Ok(); }
  // Waits for the device's default stream, where another library orders the work on memory
  // it hands over (DLPack producers asked for stream 1; PyTorch's default stream). The
  // provider's own synchronize() by default.
  virtual Status synchronize_default_stream() const { return synchronize(); }
  // Waits for another library's stream (a DLPack consumer's, as DLPack numbers them: 1 the
  // legacy default stream, 2 the per-thread one, else the stream's handle), so memory it was
  // reading can be reused. Nothing to wait for by default.
  virtual Status synchronize_foreign_stream(uintptr_t stream) const {
    (void)stream;
    return Status::Ok();
  }
  // Gives the memory its allocator keeps cached between runs back to the device (after a run
  // whose run config entry memory.enable_memory_arena_shrinkage names the GPU, "gpu:0", as in
  // ONNX Runtime). Blocks in use, and those a recorded run holds, stay. Nothing by default.
  virtual Status shrink_memory() { return Status::Ok(); }
  // A new tensor in this provider's memory (allocator()) holding a copy of `src` (on the host or
  // this provider's device).
  Result<Tensor> copy_to_own_memory(const Tensor& src);

  // Run capture (CUDA graphs, ONNX Runtime's enable_cuda_graph), which Session::run(IoBinding&)
  // drives: true when this provider was asked to record runs and replay them.
  virtual bool captures_runs() const { return false; }
  // Starts recording: until end_capture, the work its kernels queue is recorded, not done,
  // and the memory its allocator hands out is kept for the recording. A copy that must reach
  // the host (it would wait for the device) fails while recording; one from the host is
  // recorded with a private copy of the source bytes, so a replay moves the bytes the recorded
  // run saw. The caller keeps every other run off this provider until end_capture.
  virtual Status begin_capture() { return not_implemented(name(), " cannot record runs"); }
  // Ends the recording; `keep` false discards it (after a failed run). Nothing recorded has
  // run yet: replay() does the work.
  virtual Result<std::unique_ptr<CapturedRun>> end_capture(bool keep) {
    (void)keep;
    return not_implemented(name(), " cannot record runs");
  }
};

// The CPU: always present; its kernels read and write host memory.
class CpuProvider final : public ExecutionProvider {
 public:
  static std::shared_ptr<ExecutionProvider> shared();
  std::string name() const override { return "CPU"; }
  Device device() const override { return Device{}; }
  std::string description() const override { return "CPU"; }
  Status copy(const Tensor& src, Tensor& dst) const override;
};

// Checks what every copy() needs: both defined, same dtype and element count, no strings.
Status check_copy_pair(const Tensor& src, const Tensor& dst);

class ProviderRegistry {
 public:
  using Factory = std::function<Result<std::shared_ptr<ExecutionProvider>>(const ProviderOptions&)>;
  // Whether the provider can run on this machine (a device and a driver are there), without
  // making one: OK, or an error saying why not. Cheap enough to call per session.
  using Probe = std::function<Status()>;
  static ProviderRegistry& global();

  // Registers a provider under `name` ("CUDA"); ONNX Runtime's name for it ("CUDAExecutionProvider")
  // is accepted as well. Called from static initialisers of the provider's own files. No probe:
  // the provider runs wherever the build does (the CPU).
  void add(const std::string& name, const std::string& ort_name, Factory factory, Probe probe = nullptr);
  // OK when the provider `name` (either spelling) is in this build and can run here;
  // NOT_IMPLEMENTED when the build lacks it; its probe's error (saying why) otherwise.
  Status available(const std::string& name) const;
  // ONNX Runtime's names of the providers of this build that can run here, CPU last: what
  // onnxruntime.get_available_providers() lists (a CUDA build on a machine without a usable
  // GPU lists the CPU only).
  std::vector<std::string> available_ort_names() const;
  // The canonical name for `name` (either spelling, case-insensitive), or "" when no provider
  // of this build has it.
  std::string canonical(const std::string& name) const;
  // Makes the provider `name` with `options`. NOT_IMPLEMENTED for a provider this build does
  // not have (naming the ones it has); the provider's own error when it cannot run here.
  Result<std::shared_ptr<ExecutionProvider>> create(const std::string& name, const ProviderOptions& options) const;
  // The providers of this build, CPU last (whether or not a device is present).
  std::vector<std::string> names() const;
  // ONNX Runtime's names for them ("CUDAExecutionProvider", "CPUExecutionProvider"), whether
  // or not they can run here.
  std::vector<std::string> ort_names() const;
  // ONNX Runtime's name for the provider `name` (either spelling); `name` when unknown.
  std::string ort_name(const std::string& name) const;

 private:
  struct Entry {
    std::string name, ort_name;
    Factory factory;
    Probe probe;
  };
  std::vector<Entry> entries_;
};

struct ProviderRegistrar {
  ProviderRegistrar(const std::string& name, const std::string& ort_name, ProviderRegistry::Factory factory,
                    ProviderRegistry::Probe probe = nullptr) {
    ProviderRegistry::global().add(name, ort_name, std::move(factory), std::move(probe));
  }
};

}  // namespace onyx
