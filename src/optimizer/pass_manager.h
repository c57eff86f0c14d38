// PassManager: runs the optimisation phases a level enables, each to a fixpoint, verifying
// the graph after every pass that changed it.
#pragma once
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "ops/infer_graph.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {

struct OptimizeReport {
  size_t nodes_before = 0, nodes_after = 0;
  // Pass name -> how many of its runs changed the graph.
  std::map<std::string, int> changes;
  // Rewrites not made for the preferred provider (PassContext::declined): "attention_fusion:
  // CUDA has no kernel for com.microsoft:MultiHeadAttention" -> the nodes they matched at.
  std::map<std::string, std::set<std::string>> declined_for_provider;
  // Every pass run, in order (for the profile): which pass, phase and round, when, and
  // whether it changed the graph (its time includes the checks and re-inference that follow).
  struct PassRun {
    std::string pass;
    const char* phase = "";
    int round = 0;
    std::chrono::steady_clock::time_point start, end;
    bool changed = false;
  };
  std::vector<PassRun> runs;
  // Why nothing ran, when the graph as loaded did not verify (the planner then reports the
  // problem); empty otherwise.
  std::string skipped;
  // "phase simplify: 3 rounds; constant_folding x2, ..." for the log.
  std::string summary() const;
};

class PassManager {
 public:
  using PhasePasses = std::pair<Phase, std::vector<std::shared_ptr<const Pass>>>;
  // The registered passes of every phase `level` enables (SessionOptions::
  // graph_optimization_level: 0 none, 1 simplify, 2 and 3 also fuse, 99 also layout).
  static PassManager for_level(int level);
  // The same without the passes `disabled` names (PassRegistry::canonical_name spellings); an
  // INVALID_ARGUMENT error when one names no pass.
  static Result<PassManager> for_level(int level, const std::set<std::string>& disabled);
  explicit PassManager(std::vector<PhasePasses> phases) : phases_(std::move(phases)) {}

  // Optimises `model`'s main graph in place. `types` must be the static types of the graph as
  // given; on return they are the types of the optimised graph. Before the first pass the
  // graph is put in topological order and verified; a graph that fails is left as loaded and
  // the reason put in OptimizeReport::skipped. After each pass that changed the graph: the
  // graph is verified, graph inputs and output names are checked unchanged, unused
  // initializers and stale value_infos are dropped and the types are inferred again. A pass
  // error or a failed check is an INTERNAL error naming the pass. A phase still changing after
  // max_rounds rounds stops there (logged as a warning).
  Result<OptimizeReport> run(ir::Model& model, ops::GraphTypes& types, int log_level = 2) const;

  int max_rounds = 16;
  // Set by a session whose first provider is not the CPU (PassContext::target).
  std::optional<ProviderTarget> target;

 private:
  std::vector<PhasePasses> phases_;
};

// Removes initializers nothing reads (graph inputs keep theirs) and value_infos of values that
// no longer exist. Returns how many initializers went.
size_t prune_unused(ir::Graph& graph);

}  // namespace onyx::optimizer
