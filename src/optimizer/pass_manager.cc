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

Result<std::string> PassRegistry::canonical_name(const std::string& name) const {
  // CamelCase to snake_case: a word starts at an upper-case letter after a lower-case letter or
  // digit, or at the last capital of an acronym followed by lower case ("ConvBNFusion").
  std::string snake;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool upper = c >= 'A' && c <= 'Z';
    if (upper && i > 0) {
      const char prev = name[i - 1], next = i + 1 < name.size() ? name[i + 1] : '\0';
      const bool prev_lower = (prev >= 'a' && prev <= 'z') || (prev >= '0' && prev <= '9');
      const bool acronym_end = prev >= 'A' && prev <= 'Z' && next >= 'a' && next <= 'z';
      if (prev_lower || acronym_end) snake += '_';
    }
    snake += upper ? char(c - 'A' + 'a') : c;
  }
  std::string known;
  for (const PassDef& d : defs_) {
    if (d.pass->name() == snake) return snake;
    known += (known.empty() ? "" : ", ") + d.pass->name();
  }
  return invalid_argument("no graph optimisation pass is named '", name, "'; the passes are: ", known);
}

namespace {

// "domain:op" of a node `patch` adds that ctx.target has no kernel for, when it has kernels for
// every node the patch removes (ProviderTarget); "" when the patch may go ahead.
std::string op_the_target_lacks(const Patch& patch, const ir::Graph& graph, const PassContext& ctx) {
  const ProviderTarget& target = *ctx.target;
  auto opset_of = [&](const std::string& domain) {
    auto it = patch.opset_imports.find(domain);
    return it != patch.opset_imports.end() ? it->second : ctx.model.opset(domain);
  };
  std::string missing;
  for (const ir::Node& n : patch.add_nodes)
    if (missing.empty() && !target.has_kernel(n.domain, n.op_type, opset_of(n.domain)))
      missing = n.domain.empty() ? n.op_type : n.domain + ":" + n.op_type;
  if (missing.empty()) return "";
  for (size_t r : patch.remove_nodes) {
    if (r >= graph.nodes.size()) return "";  // malformed; apply_patches reports it
    const ir::Node& n = graph.nodes[r];
    if (!target.has_kernel(n.domain, n.op_type, ctx.opset(n))) return "";
  }
  return missing;
}

}  // namespace

Result<bool> RulePass::run(PassContext& ctx) const {
  ir::Graph& graph = ctx.model.graph;
  bool changed = false;
  // A sweep tries every node against one snapshot and applies the non-conflicting patches
  // together; patches skipped for a conflict, and matches the edits enable, get the next sweep.
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    GraphIndex index(graph, &ctx.types);
    std::vector<Patch> batch;
    std::vector<bool> removed(graph.nodes.size(), false);
    std::unordered_set<std::string> deleted_values, new_reads;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      if (removed[i]) continue;
      std::optional<Patch> patch = match(index, i, ctx);
      if (!patch || patch->empty()) continue;
      if (ctx.target) {
        std::string missing = op_the_target_lacks(*patch, graph, ctx);
        if (!missing.empty()) {
          if (ctx.declined)
            (*ctx.declined)[name() + ": " + ctx.target->provider + " has no kernel for " + missing].insert(
                graph.nodes[i].label());
          continue;
        }
      }
      // Values this patch deletes, and values it makes something read (newly or again).
      std::unordered_set<std::string> made;
      for (const auto& n : patch->add_nodes) made.insert(n.outputs.begin(), n.outputs.end());
      for (const auto& init : patch->add_initializers) made.insert(init.first);
      std::vector<std::string> deletes, reads;
      bool conflict = false;
      for (size_t r : patch->remove_nodes) {
        if (r >= removed.size() || removed[r]) conflict = true;
        else
          for (const auto& o : graph.nodes[r].outputs)
            if (!o.empty() && !made.count(o)) deletes.push_back(o);
      }
      for (const auto& [from, to] : patch->replace_uses) reads.push_back(to);
      for (const auto& n : patch->add_nodes) reads.insert(reads.end(), n.inputs.begin(), n.inputs.end());
      for (const auto& v : deletes) conflict = conflict || new_reads.count(v);
      for (const auto& v : reads) conflict = conflict || deleted_values.count(v);
      if (conflict) continue;
      for (size_t r : patch->remove_nodes) removed[r] = true;
      deleted_values.insert(deletes.begin(), deletes.end());
      new_reads.insert(reads.begin(), reads.end());
      for (const auto& [domain, version] : patch->opset_imports)
        if (!ctx.model.opsets.count(domain)) ctx.model.opsets[domain] = version;
      batch.push_back(std::move(*patch));
    }
    if (batch.empty()) break;
    ONYX_RETURN_IF_ERROR(apply_patches(graph, std::move(batch)));
    changed = true;
  }
  return changed;
}

size_t prune_unused(ir::Graph& graph) {
  std::unordered_set<std::string> used;
  for (const auto& vi : graph.inputs) used.insert(vi.name);
  for (const auto& vi : graph.outputs) used.insert(vi.name);
  for (const auto& n : graph.nodes) {
    if (has_subgraph(n)) {
      for (const auto& name : node_reads(n)) used.insert(name);
    } else {
      used.insert(n.inputs.begin(), n.inputs.end());
    }
  }
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

Result<PassManager> PassManager::for_level(int level, const std::set<std::string>& disabled) {
  std::set<std::string> names;
  for (const std::string& d : disabled) {
    ONYX_ASSIGN_OR_RETURN(std::string name, PassRegistry::global().canonical_name(d));
    names.insert(std::move(name));
  }
  PassManager manager = for_level(level);
  for (auto& [phase, passes] : manager.phases_)
    std::erase_if(passes, [&](const auto& pass) { return names.count(pass->name()) > 0; });
  return manager;
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
        PassContext ctx{model, types, log_level, target ? &*target : nullptr, &report.declined_for_provider};
        const auto start = std::chrono::steady_clock::now();
        Result<bool> r = pass->run(ctx);
        if (!r.ok()) {
          Status st = r.take_status();
          return error(StatusCode::kInternal, "optimizer pass '", pass->name(), "' failed: ", st.to_string());
        }
        report.runs.push_back({pass->name(), phase_name(phase), round, start, start, *r});
        if (!*r) {
          report.runs.back().end = std::chrono::steady_clock::now();
          continue;
        }
        changed = true;
        ++report.changes[pass->name()];
        ONYX_RETURN_IF_ERROR(check(*pass));
        prune_unused(graph);
        types = ops::infer_graph_types(graph, model.opsets);
        report.runs.back().end = std::chrono::steady_clock::now();
        const double ms = std::chrono::duration<double, std::milli>(report.runs.back().end - start).count();
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
