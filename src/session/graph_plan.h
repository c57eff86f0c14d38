// GraphPlan: a graph made ready to run. Nodes in topological order, one prepared kernel per
// node, every value given a slot, and each slot released after its last reader so memory is
// reused. A plan is immutable after build(): run() is const and safe to call concurrently.
//
// Subgraphs (If/Loop/Scan bodies) are GraphPlans too; they read values of enclosing graphs
// ("outer scope") through the Frame of the run that called them.
#pragma once
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/allocator.h"
#include "core/value.h"
#include "ir/graph.h"
#include "kernels/kernel.h"
#include "session/placement.h"

namespace onyx {

// The names visible to a graph from its enclosing graphs, innermost first.
struct Scope {
  const Scope* parent = nullptr;
  std::set<std::string> names;
  bool contains(const std::string& name) const {
    return names.count(name) || (parent && parent->contains(name));
  }
};

class RunProfile;  // session/profiler.h

// What stops a run early, shared by the frames of a top-level run and of its subgraphs.
// Checked before every node and at the start of every (sub)graph run, so a run stops between
// nodes (and between Loop/Scan iterations); a kernel already computing finishes first.
struct RunControl {
  const std::atomic<bool>* terminate = nullptr;  // set from any thread to stop
  bool has_deadline = false;
  std::chrono::steady_clock::time_point deadline;
  int64_t timeout_ms = 0;  // for the message
  // CANCELLED when terminate is set or the deadline has passed; OK otherwise.
  Status check() const;
};

// The extras of a top-level run (subgraph runs take them from their parent frame).
struct RunExtras {
  RunProfile* profile = nullptr;  // records one event per kernel call; null costs one test per node
  Arena* arena = nullptr;         // serves intermediates; null: an arena of the run's own
  const RunControl* control = nullptr;
  // Per step (plan order): 0 skips it. Null runs every step. From GraphPlan::steps_for_outputs.
  const std::vector<char>* active_steps = nullptr;
  // Per graph output: a caller buffer that the producing kernel writes straight into when it
  // allocates that output with exactly this dtype and shape (not for strings); an undefined
  // tensor for none. Whatever ends up elsewhere is the caller's to copy.
  const std::vector<Tensor>* output_targets = nullptr;
  // Per graph output: 1 to return it where it was produced (a device) instead of copying it to
  // the host (IoBinding outputs bound to a device). Null: every output on the host.
  const std::vector<char>* outputs_on_device = nullptr;
};

class GraphPlan {
 public:
  // Plans `graph` (which must outlive the plan). `opsets` maps domain -> model opset.
  // With `verify_types`, every node output named there is checked at run against that
  // static type (an INTERNAL error on a misfit): static rules and kernels must agree.
  // `settings` reach every kernel's prepare, subgraphs' included. `placement` (null: all on
  // the CPU) places the nodes of this graph on providers and adds the copies between them
  // (session/placement.h); subgraphs run on the CPU.
  static Result<std::shared_ptr<GraphPlan>> build(
      const ir::Graph& graph, const std::map<std::string, int64_t>& opsets, const Scope* outer,
      const std::unordered_map<std::string, ir::TypeInfo>* verify_types = nullptr,
      const std::function<void(const std::string&)>& on_release = nullptr, KernelSettings settings = {},
      const PlacementOptions* placement = nullptr);

  // Runs the graph: `inputs` in graph-input order (a none Value lets an initializer default
  // apply); returns the graph outputs in order (none for an output whose producer was
  // skipped). `parent` is the caller's frame for subgraphs, which share its arena, profile
  // and control; `extras` is for top-level runs only.
  Result<std::vector<Value>> run(std::vector<Value> inputs, const Frame* parent, const RunExtras& extras = {}) const;

  // The steps the given graph outputs (by index) need, for RunExtras::active_steps: their
  // producers and, transitively, everything those read (subgraph captures included).
  std::vector<char> steps_for_outputs(const std::vector<size_t>& outputs) const;

  const ir::Graph& graph() const { return graph_; }
  // Where each step runs, in plan order, copy steps included.
  const std::vector<NodePlacement>& placement() const { return placement_; }
  // Why a run with every input fed on the device and every output taken there could not be
  // recorded (a CUDA graph, session/run_capture.h): inputs read on the host, and copies to
  // the host before the outputs. Empty when it could.
  std::vector<std::string> recording_blockers() const;
  // (node, Kernel::implementation()) for every step of this graph whose kernel names one.
  std::vector<std::pair<const ir::Node*, std::string>> implementations() const;
  // Initializers whose data the plan dropped because every reader packed its own copy in
  // prepare. Each is dropped as soon as its last reader is prepared, and `on_release` (given to
  // build) is called with its name so the owner of the graph can drop its copy too; peak
  // memory then holds one weight twice at most, not all of them.
  const std::vector<std::string>& released_constants() const { return released_constants_; }
  int num_inputs() const { return int(input_slots_.size()); }
  int num_outputs() const { return int(output_slots_.size()); }
  // The graph input that graph output `o` may be written over (Kernel::in_place_outputs: its
  // producing CPU step declares the pair, and that step is the input's only reader); -1 for none.
  int input_overwritten_by_output(size_t o) const {
    return o < overwritable_inputs_.size() ? overwritable_inputs_[o] : -1;
  }
  // Names of values this graph reads from enclosing graphs.
  const std::vector<std::string>& captured_names() const { return captured_names_; }

 private:
  friend class Frame;
  struct Step {
    const ir::Node* node = nullptr;
    int64_t opset = 0;
    std::unique_ptr<Kernel> kernel;
    std::string provider = "CPU";             // ExecutionProvider::name, for profiles and messages
    ExecutionProvider* device = nullptr;      // the provider when not the CPU
    Allocator* allocator = nullptr;           // the device's memory for its outputs; null: the run's arena
    std::vector<int> inputs;   // slot per node input; -1 for omitted
    std::vector<int> outputs;  // slot per node output; -1 for omitted
    std::vector<int> release;  // slots whose last reader is this step
    std::vector<int> reads;    // every slot the step reads, subgraph captures included
    // (output index, input index) pairs of in_place_outputs() whose input is an intermediate
    // this step reads last: at run time the output takes the input's block when the run's
    // arena made it and nothing else holds it (GraphPlan::run).
    std::vector<std::pair<int, int>> donations;
    std::vector<const ir::TypeInfo*> static_types;  // per output, when verifying; else empty
    // Per output of a CPU step of the main graph, from its static type: kFloat16Output,
    // kOtherOutput (omitted outputs too), or kUnknownOutput; empty elsewhere. When the kernel
    // has no float16 path (NOT_IMPLEMENTED with float16 inputs) the step computes in float32
    // and the outputs known to be float16 are narrowed back (compute_in_float32).
    std::vector<char> output_kinds;
  };
  static constexpr char kUnknownOutput = 0, kFloat16Output = 1, kOtherOutput = 2;
  Status verify_outputs(const Step& step, const Frame& frame) const;
  // The float16 fallback of a CPU step (Step::output_kinds): float16 inputs widened to float32,
  // the kernel run again, float32 outputs whose static type is float16 narrowed back. NOT
  // OK (the caller keeps its first error) when an output's type is unknown or no input is
  // float16.
  Status compute_in_float32(const Step& step, const std::vector<const Value*>& inputs,
                            std::vector<Value*>& outputs, Frame& frame) const;

  explicit GraphPlan(const ir::Graph& graph) : graph_(graph) {}
  int slot(const std::string& name);
  Status order_nodes(std::vector<const ir::Node*>& order, const Scope* outer);

  const ir::Graph& graph_;
  std::vector<std::string> slot_names_;
  std::unordered_map<std::string, int> slot_of_;
  std::vector<Value> constants_;       // per slot: initializer values, else none
  std::vector<std::string> released_constants_;
  std::vector<int> input_slots_, output_slots_;
  // Per graph input: 1 when a step reads it on the host straight from the feed (a CPU kernel
  // reading its data, a device kernel's host input): a feed on a device is moved first.
  std::vector<char> host_read_inputs_;
  // Per graph output: the step that copies it to the host and nothing else reads (-1: none),
  // and the slot it is read from, for RunExtras::outputs_on_device.
  std::vector<int> output_copy_steps_, output_source_slots_;
  std::vector<int> overwritable_inputs_;  // per graph output, see input_overwritten_by_output
  std::vector<int> captured_slots_;
  std::vector<std::string> captured_names_;
  std::vector<Step> steps_;
  // Placement (main graph only): the providers steps run on, the nodes of copy steps, and the
  // report.
  std::vector<std::shared_ptr<ExecutionProvider>> providers_;
  std::deque<ir::Node> copy_nodes_;
  std::vector<NodePlacement> placement_;
};

// The values of one running graph; outer-scope lookups walk the parent chain.
class Frame {
 public:
  // `arena` serves the frame's intermediate tensors (shared with nested subgraph frames).
  // `profile` (may be null) receives the frame's kernel events; nested frames share it, and
  // `control` (may be null) too.
  Frame(const GraphPlan& plan, const Frame* parent, Arena* arena, RunProfile* profile = nullptr,
        const RunControl* control = nullptr)
      : arena(arena), profile(profile), control(control), plan_(plan), parent_(parent) {}
  // The current value named `name` in this frame or an enclosing one; null when unknown.
  const Value* lookup(const std::string& name) const;
  // The caller buffer bound to the value slot `slot` (an element of `values`), or null.
  const Tensor* output_target(const Value* slot) const;
  std::vector<Value> values;
  Arena* arena;
  RunProfile* profile;
  const RunControl* control;
  // Per slot of `values`: the caller buffer a kernel should write that slot into, or null.
  // Empty unless the run has RunExtras::output_targets.
  std::vector<const Tensor*> targets;

 private:
  const GraphPlan& plan_;
  const Frame* parent_;
};

}  // namespace onyx
