// Recorded runs of one session (CUDA graphs; ONNX Runtime's enable_cuda_graph with its run
// config "gpu_graph_id"). Session::run(IoBinding&) uses them when a provider of the session
// records runs (ExecutionProvider::captures_runs: CUDA with enable_cuda_graph=1).
//
// Per graph id (run config entry "gpu_graph_id": an integer, 0 by default; -1 runs as usual):
//   first run   runs as usual: kernels make their per-shape plans and the caches fill;
//   second run  is recorded (begin_capture .. end_capture), then the recording is replayed
//               once to compute it;
//   later runs  check that the binding is the recorded one (the same input buffers: address,
//               device, dtype and shape; the same bound outputs), then replay it. New input
//               values are given by writing them into the bound buffers.
// What the host computed while recording is frozen into the recording, so every bound input
// must be a tensor on the recording provider's device (else INVALID_ARGUMENT before anything
// runs), and a run that needs the device's results on the host mid-run (a copy to the host, a
// CPU kernel reading a device value) cannot be recorded: the error names the node, is kept,
// and every later run with that graph id returns it (gpu_graph_id -1 runs it unrecorded).
//
// A replay's outputs are the recorded run's buffers, so a replay overwrites what the previous
// replay of that graph id returned; replays of one graph id run one at a time.
//
// While a run is recorded, the session's other runs wait (each run, up to its wait for the
// devices, holds the session's run lock shared; recording holds it alone). Work queued on the
// session's provider from outside a run (Session::provider_for(...)->copy from another
// thread) during a recording would be recorded with it: do not. A recording holds every
// device block the run touched (the sum of its tensors, not their peak), so one that runs out
// of device memory fails, and that failure is kept like the others.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "providers/execution_provider.h"
#include "session/io_binding.h"
#include "session/run_options.h"

namespace onyx {

// What a recording depends on in a binding: where each bound input and output lies.
struct BindingSignature {
  struct Slot {
    std::string name;
    Device device;
    DataType dtype = DataType::kUndefined;
    Shape shape;
    const void* data = nullptr;  // null for an output bound to a device, not a buffer
    bool operator==(const Slot& o) const {
      return name == o.name && device == o.device && dtype == o.dtype && shape == o.shape && data == o.data;
    }
  };
  std::vector<Slot> inputs, outputs;

  static BindingSignature of(const IoBinding& binding);
  // "" when `this` matches `recorded`; otherwise the first difference, in words.
  std::string difference_from(const BindingSignature& recorded) const;
};

class RunCaptures {
 public:
  static constexpr const char* kGraphIdKey = "gpu_graph_id";
  // The graph id a run asks for: options.config["gpu_graph_id"], 0 when absent; -1 (or any
  // negative id) for none. INVALID_ARGUMENT when it is not an integer.
  static Result<int64_t> graph_id(const RunOptions& options);

  explicit RunCaptures(std::shared_ptr<ExecutionProvider> provider) : provider_(std::move(provider)) {}
  ExecutionProvider& provider() const { return *provider_; }

  enum class Stage { kFirstRun, kRecord, kReplay, kFailed };
  // One graph id's state. Hold `mu` while using it: one run of a graph id at a time.
  struct Graph {
    std::mutex mu;
    Stage stage = Stage::kFirstRun;
    Status failure;  // why recording failed (kFailed)
    BindingSignature signature;
    std::unique_ptr<CapturedRun> recording;
    std::vector<Value> outputs;  // the recorded run's outputs, in bind order
    size_t copied_outputs = 0;
  };
  // The state of graph `id`, made on first use; it lives as long as this object.
  Graph& graph(int64_t id);

 private:
  std::shared_ptr<ExecutionProvider> provider_;
  std::mutex mu_;
  std::map<int64_t, std::unique_ptr<Graph>> graphs_;
};

}  // namespace onyx
