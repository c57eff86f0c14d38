// RunOptions: what a caller may ask of one Session::run (ONNX Runtime's RunOptions).
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <string>

namespace onyx {

struct RunOptions {
  RunOptions() = default;
  // Copies take the flag's current value; they do not share it.
  RunOptions(const RunOptions& other) { *this = other; }
  RunOptions& operator=(const RunOptions& other) {
    terminate.store(other.terminate.load());
    timeout_ms = other.timeout_ms;
    only_execute_path_to_fetches = other.only_execute_path_to_fetches;
    shrink_arena = other.shrink_arena;
    tag = other.tag;
    config = other.config;
    return *this;
  }

  // Set from any thread to stop every run using these options: each stops before its next
  // node (or Loop/Scan iteration) with a CANCELLED error, and the session stays usable.
  // A run started while it is set fails at once; clear it to run again.
  std::atomic<bool> terminate{false};
  // Wall-clock limit of one run in milliseconds (0: none), checked between nodes like
  // `terminate`; a run past it fails with CANCELLED.
  int64_t timeout_ms = 0;
  // Run only the nodes the requested outputs need (ONNX Runtime's
  // only_execute_path_to_fetches); by default every node runs, as ORT does.
  bool only_execute_path_to_fetches = false;
  // After this run, give the memory its arena keeps for later runs back to the system
  // (ORT's run config memory.enable_memory_arena_shrinkage).
  bool shrink_arena = false;  // the device providers' caches: config entry memory.enable_memory_arena_shrinkage = "gpu:0"
  std::string tag;                            // names the run in its error messages
  // Run config entries. Read by onyx: gpu_graph_id (session/run_capture.h),
  // disable_synchronize_execution_providers (io_binding.h) and
  // memory.enable_memory_arena_shrinkage naming "gpu" (device providers' caches trimmed after
  // the run); the others are kept for the caller.
  std::map<std::string, std::string> config;
};

}  // namespace onyx
