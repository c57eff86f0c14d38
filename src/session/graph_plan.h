// GraphPlan: a graph made ready to run. Nodes in topological order, one prepared kernel per
// node, every value given a slot, and each slot released after its last reader so memory is
// reused. A plan is immutable after build(): run() is const and safe to call concurrently.
//
// Subgraphs (If/Loop/Scan bodies) are GraphPlans too; they read values of enclosing graphs
// ("outer scope") through the Frame of the run that called them.
#pragma once
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

class GraphPlan {
 public:
  // Plans `graph` (which must outlive the plan). `opsets` maps domain -> model opset.
  // With `verify_types`, every node output named there is checked at run against that
  // static type (an INTERNAL error on a misfit): static rules and kernels must agree.
  static Result<std::shared_ptr<GraphPlan>> build(
      const ir::Graph& graph, const std::map<std::string, int64_t>& opsets, const Scope* outer,
      const std::unordered_map<std::string, ir::TypeInfo>* verify_types = nullptr,
      const std::function<void(const std::string&)>& on_release = nullptr);

  // Runs the graph: `inputs` in graph-input order (a none Value lets an initializer default
  // apply); returns the graph outputs in order. `parent` is the caller's frame for subgraphs.
  // `profile`, when given (top-level runs only; subgraph runs use their parent's), records one
  // event per kernel call; null costs one pointer test per node. A top-level run allocates its
  // intermediates from `arena` when given (the caller keeps it for the next run), else from
  // an arena of its own.
  Result<std::vector<Value>> run(std::vector<Value> inputs, const Frame* parent, RunProfile* profile = nullptr,
                                 Arena* arena = nullptr) const;

  const ir::Graph& graph() const { return graph_; }
  // Initializers whose data the plan dropped because every reader packed its own copy in
  // prepare. Each is dropped as soon as its last reader is prepared, and `on_release` (given to
  // build) is called with its name so the owner of the graph can drop its copy too; peak
  // memory then holds one weight twice at most, not all of them.
  const std::vector<std::string>& released_constants() const { return released_constants_; }
  int num_inputs() const { return int(input_slots_.size()); }
  int num_outputs() const { return int(output_slots_.size()); }
  // Names of values this graph reads from enclosing graphs.
  const std::vector<std::string>& captured_names() const { return captured_names_; }

 private:
  friend class Frame;
  struct Step {
    const ir::Node* node = nullptr;
    int64_t opset = 0;
    std::unique_ptr<Kernel> kernel;
    std::vector<int> inputs;   // slot per node input; -1 for omitted
    std::vector<int> outputs;  // slot per node output; -1 for omitted
    std::vector<int> release;  // slots whose last reader is this step
    std::vector<const ir::TypeInfo*> static_types;  // per output, when verifying; else empty
  };
  Status verify_outputs(const Step& step, const Frame& frame) const;

  explicit GraphPlan(const ir::Graph& graph) : graph_(graph) {}
  int slot(const std::string& name);
  Status order_nodes(std::vector<const ir::Node*>& order, const Scope* outer);

  const ir::Graph& graph_;
  std::vector<std::string> slot_names_;
  std::unordered_map<std::string, int> slot_of_;
  std::vector<Value> constants_;       // per slot: initializer values, else none
  std::vector<std::string> released_constants_;
  std::vector<int> input_slots_, output_slots_;
  std::vector<int> captured_slots_;
  std::vector<std::string> captured_names_;
  std::vector<Step> steps_;
};

// The values of one running graph; outer-scope lookups walk the parent chain.
class Frame {
 public:
  // `arena` serves the frame's intermediate tensors (shared with nested subgraph frames).
  // `profile` (may be null) receives the frame's kernel events; nested frames share it.
  Frame(const GraphPlan& plan, const Frame* parent, Arena* arena, RunProfile* profile = nullptr)
      : arena(arena), profile(profile), plan_(plan), parent_(parent) {}
  // The current value named `name` in this frame or an enclosing one; null when unknown.
  const Value* lookup(const std::string& name) const;
  std::vector<Value> values;
  Arena* arena;
  RunProfile* profile;

 private:
  const GraphPlan& plan_;
  const Frame* parent_;
};

}  // namespace onyx
