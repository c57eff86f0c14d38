// Graph optimisation passes and their registry.
//
// A pass rewrites the main graph of a model in place and says whether it changed anything.
// Most passes are a RulePass: one rewrite rule tried at every node, returning a staged edit
// (Patch) or nothing. A pass file defines its class and ends with ONYX_REGISTER_PASS, which
// puts it into a phase; there is no table to edit (the files are built as an OBJECT library so
// the linker keeps every registration).
//
// Contract for every pass: keep graph inputs and graph output names as they are; never remove
// or rename a value a subgraph reads from the main graph (GraphIndex::is_captured); leave the
// bodies of If/Loop/Scan alone; keep results equal to the unoptimised graph's (up to float
// rounding for fusions). The PassManager verifies the graph after every pass and reports a
// broken graph as an INTERNAL error naming the pass.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "ops/infer_graph.h"
#include "optimizer/graph_index.h"
#include "optimizer/patch.h"

namespace onyx::optimizer {

// Phases run in this order; each runs to a fixpoint. A phase runs when the session's
// graph_optimization_level is at least its level.
enum class Phase { kSimplify, kFuse, kLayout };
inline constexpr Phase kAllPhases[] = {Phase::kSimplify, Phase::kFuse, Phase::kLayout};
int phase_level(Phase phase);        // simplify 1 (basic), fuse 2 (extended), layout 99 (all)
const char* phase_name(Phase phase);  // "simplify", "fuse", "layout"

// The provider a session prefers, when it is not the CPU (the first of
// SessionOptions::providers). Rewrites are judged against it: one whose new nodes it has no
// kernel for, replacing nodes it has a kernel for every one of, is not made, because unfused
// the nodes run on the device and fused they would fall back to the CPU (with copies around
// them). A rewrite of nodes the provider could not all run anyway is made as usual.
struct ProviderTarget {
  std::string provider;  // "CUDA"
  // Whether the provider has a kernel for (domain, op) at that opset (KernelRegistry::find).
  std::function<bool(const std::string& domain, const std::string& op, int64_t opset)> has_kernel;
};

// What a pass sees: the model (its main graph is what passes rewrite; opset imports may be
// added), the static types of the graph as it stands, and the log level.
struct PassContext {
  ir::Model& model;
  const ops::GraphTypes& types;
  int log_level = 2;
  // Null on the CPU alone. RulePass::run drops the patches `target` rules out and records
  // each under "PASS: PROVIDER has no kernel for DOMAIN:OP", with the node it matched at.
  const ProviderTarget* target = nullptr;
  std::map<std::string, std::set<std::string>>* declined = nullptr;
  // The model's opset for the node's domain; 0 when the domain is not imported.
  int64_t opset(const ir::Node& node) const { return model.opset(node.domain); }
};

class Pass {
 public:
  virtual ~Pass() = default;
  // snake_case, unique: "constant_folding".
  virtual std::string name() const = 0;
  // Rewrites ctx.model.graph; true when anything changed. An error means a bug or a graph the
  // pass cannot handle; the PassManager stops and reports it with the pass's name.
  virtual Result<bool> run(PassContext& ctx) const = 0;
};

// A pass made of one rewrite rule. run() sweeps the graph: match() is tried on every node of
// one snapshot (a node an earlier patch of the sweep removes is skipped), and the patches are
// applied together at the end of the sweep. A patch that conflicts with an earlier one of the
// sweep (removes a node it removes, deletes a value it makes something read, or reads a value
// it deletes) is dropped and found again by the next sweep; sweeps go on while they change
// something, up to kMaxSweeps. Types are those from before the pass: values a patch creates
// have none until the PassManager infers again. A rule therefore judges only from the
// snapshot, and must describe an edit that stays valid when other non-conflicting edits of
// the same sweep are applied with it.
class RulePass : public Pass {
 public:
  static constexpr int kMaxSweeps = 8;
  // The edit replacing node `i` (and whatever it pulls in), or nullopt to leave it.
  virtual std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext& ctx) const = 0;
  Result<bool> run(PassContext& ctx) const override;
};

struct PassDef {
  Phase phase;
  int order;  // passes of a phase run by ascending order, then name
  std::shared_ptr<const Pass> pass;
};

class PassRegistry {
 public:
  static PassRegistry& global();
  void add(PassDef def) { defs_.push_back(std::move(def)); }
  const std::vector<PassDef>& all() const { return defs_; }
  // The passes of `phase`, in run order.
  std::vector<std::shared_ptr<const Pass>> phase(Phase phase) const;
  // The registered pass `name` names: onyx's snake_case name ("gelu_fusion") or the same name
  // in CamelCase, as ONNX Runtime spells its optimizers ("GeluFusion", "ConvBNFusion"). An
  // INVALID_ARGUMENT error listing the known passes when none matches.
  Result<std::string> canonical_name(const std::string& name) const;

 private:
  std::vector<PassDef> defs_;
};

struct PassRegistrar {
  explicit PassRegistrar(PassDef def) { PassRegistry::global().add(std::move(def)); }
};

// ONYX_REGISTER_PASS(Phase::kSimplify, 10, ConstantFolding);
#define ONYX_REGISTER_PASS(PHASE, ORDER, CLASS)                                                \
  static ::onyx::optimizer::PassRegistrar ONYX_CONCAT(onyx_pass_registrar_, __COUNTER__)(     \
      ::onyx::optimizer::PassDef{::onyx::optimizer::PHASE, ORDER, std::make_shared<const CLASS>()})

}  // namespace onyx::optimizer
