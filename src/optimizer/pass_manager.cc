#include "optimizer/pass_manager.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <unordered_set>

#include "core/logging.h"
#include "optimizer/verify.h"

namespace onyx::optimizer {

int phase_level(Phase phase) {
  switch (phase) {
    case Phase::kSimplify: return 1;
    case Phase::kFuse: return 2;
    case Phase::kLayout: return 99;
  }
  return 99;
}

const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::kSimplify: return "simplify";
    case Phase::kFuse: return "fuse";
    case Phase::kLayout: return "layout";
  }
  return "?";
}

PassRegistry& PassRegistry::global() {
  static PassRegistry* registry = new PassRegistry();
  return *registry;
}

std::vector<std::shared_ptr<const Pass>> PassRegistry::phase(Phase phase) const {
  std::vector<const PassDef*> defs;
  for (const PassDef& d : defs_)
    if (d.phase == phase) defs.push_back(&d);
  std::sort(defs.begin(), defs.end(), [](const PassDef* a, const PassDef* b) {
    return a->order != b->order ? a->order < b->order : a->pass->name() < b->pass->name();
  });
  std::vector<std::shared_ptr<const Pass>> out;
  for (const PassDef* d : defs) out.push_back(d->pass);
  return out;
}

Result<bool> RulePass::run(PassContext& ctx) const {
  ir::Graph& graph = ctx.model.graph;
  bool changed = false;
  // Bounds the work of a rule that keeps matching its own output.
  const size_t limit = 4 * graph.nodes.size() + 64;
  size_t applied = 0;
  auto index = std::make_unique<GraphIndex>(graph, &ctx.types);
  for (size_t i = 0; i < graph.nodes.size();) {
    std::optional<Patch> patch = match(*index, i, ctx);
    if (!patch || patch->empty()) {
      ++i;
      continue;
    }
    if (++applied > limit) return error(StatusCode::kInternal, "the rule keeps matching (", applied, " edits)");
    for (const auto& [domain, version] : patch->opset_imports)
      if (!ctx.model.opsets.count(domain)) ctx.model.opsets[domain] = version;
    ONYX_RETURN_IF_ERROR(apply_patch(graph, std::move(*patch)));
    changed = true;
    index = std::make_unique<GraphIndex>(graph, &ctx.types);
  }
  return changed;
}

size_t prune_unused(ir::Graph& graph) {
  std::unordered_set<std::string> used;
  for (const auto& vi : graph.inputs) used.insert(vi.name);
  for (const auto& vi : graph.outputs) used.insert(vi.name);
  for (const auto& n : graph.nodes)
    for (const auto& name : node_reads(n)) used.insert(name);
  size_t removed = 0;
  for (auto it = graph.initializers.begin(); it != graph.initializers.end();) {
    if (used.count(it->first)) {
      ++it;
    } else {
      it = graph.initializers.erase(it);
      ++removed;
    }
  }
  std::unordered_set<std::string> exists(used.begin(), used.end());
  for (const auto& n : graph.nodes)
    for (const auto& o : n.outputs) exists.insert(o);
  std::erase_if(graph.value_infos, [&](const ir::ValueInfo& vi) { return !exists.count(vi.name); });
  return removed;
}

std::string OptimizeReport::summary() const {
  if (!skipped.empty()) return "skipped: " + skipped;
  std::string s = std::to_string(nodes_before) + " -> " + std::to_string(nodes_after) + " nodes";
  for (const auto& [name, n] : changes) s += "; " + name + " x" + std::to_string(n);
  return s;
}

PassManager PassManager::for_level(int level) {
  std::vector<PhasePasses> phases;
  if (level <= 0) return PassManager(std::move(phases));
  for (Phase p : kAllPhases)
    if (level >= phase_level(p)) phases.emplace_back(p, PassRegistry::global().phase(p));
  return PassManager(std::move(phases));
}

Result<OptimizeReport> PassManager::run(ir::Model& model, ops::GraphTypes& types, int log_level) const {
  OptimizeReport report;
  ir::Graph& graph = model.graph;
  report.nodes_before = report.nodes_after = graph.nodes.size();
  if (phases_.empty()) return report;
  {
    Status st = sort_topologically(graph);
    if (st.ok()) st = verify_graph(graph);
    if (!st.ok()) {
      report.skipped = st.message();
      return report;
    }
  }
  // Re-sorting may have changed the node order, and the rules need the order the types follow.
  types = ops::infer_graph_types(graph, model.opsets);
  const std::vector<ir::ValueInfo> inputs = graph.inputs;
  std::vector<std::string> output_names;
  for (const auto& vi : graph.outputs) output_names.push_back(vi.name);

  auto check = [&](const Pass& pass) -> Status {
    Status st = verify_graph(graph);
    if (st.ok()) {
      bool same_inputs = graph.inputs.size() == inputs.size();
      for (size_t i = 0; same_inputs && i < inputs.size(); ++i)
        same_inputs = graph.inputs[i].name == inputs[i].name &&
                      graph.inputs[i].type.to_string() == inputs[i].type.to_string();
      bool same_outputs = graph.outputs.size() == output_names.size();
      for (size_t i = 0; same_outputs && i < output_names.size(); ++i)
        same_outputs = graph.outputs[i].name == output_names[i];
      if (!same_inputs) st = error(StatusCode::kInternal, "the graph inputs changed");
      else if (!same_outputs) st = error(StatusCode::kInternal, "the graph output names changed");
    }
    if (st.ok()) return st;
    return error(StatusCode::kInternal, "optimizer pass '", pass.name(), "' left an invalid graph: ", st.message());
  };

  for (const auto& [phase, passes] : phases_) {
    int round = 0;
    for (bool changed = true; changed; ++round) {
      changed = false;
      if (round == max_rounds) {
        log_message(LogLevel::kWarning, log_level,
                    std::string("optimizer: phase ") + phase_name(phase) + " still changing after " +
                        std::to_string(max_rounds) + " rounds; stopping it there");
        break;
      }
      for (const auto& pass : passes) {
        PassContext ctx{model, types, log_level};
        const auto start = std::chrono::steady_clock::now();
        Result<bool> r = pass->run(ctx);
        if (!r.ok()) {
          Status st = r.take_status();
          return error(StatusCode::kInternal, "optimizer pass '", pass->name(), "' failed: ", st.to_string());
        }
        if (!*r) continue;
        changed = true;
        ++report.changes[pass->name()];
        ONYX_RETURN_IF_ERROR(check(*pass));
        prune_unused(graph);
        types = ops::infer_graph_types(graph, model.opsets);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        log_message(LogLevel::kVerbose, log_level,
                    std::string("optimizer: ") + phase_name(phase) + " round " + std::to_string(round) + ": " +
                        pass->name() + " changed the graph (" + std::to_string(graph.nodes.size()) + " nodes, " +
                        std::to_string(ms) + " ms)");
      }
    }
  }
  prune_unused(graph);
  report.nodes_after = graph.nodes.size();
  return report;
}

}  // namespace onyx::optimizer
