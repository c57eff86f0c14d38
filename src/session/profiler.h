// Profiling: a Chrome-trace JSON file (chrome://tracing, https://ui.perfetto.dev) of a
// session's life: session events ("model_load", "free_dimension_overrides",
// "static_inference", "planning", one "run" per Session::run) and one node event per kernel
// call. Timestamps and durations are microseconds since the session started loading.
//
// The file is {"traceEvents":[...]} with complete ("ph":"X") events. Node events have
// cat "Node", name = the node's name (its label when unnamed) and args {op_name, node_name,
// provider, graph, input_type_shape, output_type_shape} in ONNX Runtime's layout
// (e.g. "input_type_shape":[{"float32":[1,3,224,224]}]); session events have cat "Session".
//
// Cost: a session without profiling has no Profiler; GraphPlan::run then tests one null
// pointer per node. A run that profiles collects its events in a RunProfile of its own and
// hands them to the Profiler once, at the end, under a mutex: concurrent runs are safe.
// Events live in memory until end() writes them.
#pragma once
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "ir/graph.h"

namespace onyx {

using ProfileClock = std::chrono::steady_clock;

struct ProfileEvent {
  std::string name;
  const char* category = "Session";  // "Session" or "Node"
  double start_us = 0, duration_us = 0;
  int thread = 0;
  std::string args;  // pre-rendered JSON object members ("\"k\":v,..."), may be empty
};

// A small, stable id for the calling thread (1, 2, ... in order of first use).
int profile_thread_id();

class Profiler {
 public:
  // `file` is where end() writes; `epoch` is time zero of the trace.
  Profiler(std::string file, ProfileClock::time_point epoch);
  // "<prefix>_<YYYY-MM-DD_HH-MM-SS>.json" (local time), with "_2", "_3", ... appended when
  // that name exists or this process already used it.
  static std::string make_file_name(const std::string& prefix);

  // False once end() ran; later events are dropped.
  bool active() const { return active_.load(std::memory_order_acquire); }
  double micros(ProfileClock::time_point t) const {
    return std::chrono::duration<double, std::micro>(t - epoch_).count();
  }
  // Adds a "Session" event spanning [start, end) on the calling thread. Thread-safe.
  void session_event(const std::string& name, ProfileClock::time_point start, ProfileClock::time_point end,
                     std::string args = "");
  // Adds a run's events (moved out of `events`). Thread-safe.
  void add(std::vector<ProfileEvent>& events);
  // Writes the file and stops profiling; returns the file name. A second call writes nothing
  // and returns the same name.
  Result<std::string> end();
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  ProfileClock::time_point epoch_;
  std::atomic<bool> active_{true};
  std::mutex mutex_;
  std::vector<ProfileEvent> events_;
};

// The node events of one Session::run, subgraph runs included. Not shared between runs.
class RunProfile {
 public:
  explicit RunProfile(const Profiler& profiler) : profiler_(profiler) {}
  // Records one kernel call of `node` (in graph `graph_name`) from `start` to now, with the
  // types and shapes of its inputs and outputs (null entries are omitted optionals).
  void node_event(const ir::Node& node, const std::string& graph_name, ProfileClock::time_point start,
                  const std::vector<const Value*>& inputs, const std::vector<Value*>& outputs,
                  const std::string& provider = "CPU");
  std::vector<ProfileEvent>& events() { return events_; }

 private:
  const Profiler& profiler_;
  std::mutex mutex_;  // a kernel may run subgraphs from worker threads
  std::vector<ProfileEvent> events_;
};

}  // namespace onyx
