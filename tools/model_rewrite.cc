#include "model_rewrite.h"

#include <algorithm>
#include <map>
#include <vector>

#include "kernels/kernel.h"
#include "onnx/loader.h"
#include "onnx/writer.h"
#include "ops/infer_graph.h"

namespace onyx::cli {

Result<OptimizedModel> load_and_optimize(const std::string& path, int level, const std::set<std::string>* fuse_only,
                                         const std::set<std::string>& disabled, const std::string& target_provider) {
  OptimizedModel out;
  ONYX_ASSIGN_OR_RETURN(out.model, onnx_format::load_model_file(path));
  out.report.nodes_before = out.report.nodes_after = out.model.graph.nodes.size();
  ONYX_ASSIGN_OR_RETURN(optimizer::PassManager manager, optimizer::PassManager::for_level(level, disabled));
  if (level <= 0) return out;
  ops::GraphTypes types = ops::infer_graph_types(out.model.graph, out.model.opsets);
  if (fuse_only) {
    std::vector<optimizer::PassManager::PhasePasses> phases;
    for (optimizer::Phase p : optimizer::kAllPhases) {
      if (level < optimizer::phase_level(p) || p == optimizer::Phase::kLayout) continue;
      auto passes = optimizer::PassRegistry::global().phase(p);
      if (p == optimizer::Phase::kFuse)
        std::erase_if(passes, [&](const auto& pass) { return !fuse_only->count(pass->name()); });
      phases.emplace_back(p, std::move(passes));
    }
    manager = optimizer::PassManager(std::move(phases));
  }
  if (!target_provider.empty() && target_provider != "CPU")
    manager.target = optimizer::ProviderTarget{
        target_provider, [target_provider](const std::string& domain, const std::string& op, int64_t opset) {
          return KernelRegistry::global().find(target_provider, domain, op, opset) != nullptr;
        }};
  ONYX_ASSIGN_OR_RETURN(out.report, manager.run(out.model, types, /*log_level=*/3));
  return out;
}

Status save_rewritten(const ir::Model& model, const std::string& path, const std::string& external_data) {
  onnx_format::SaveOptions save;
  save.external_data_file = external_data;
  return onnx_format::save_model(model, path, save);
}

std::string op_histogram(const ir::Graph& graph) {
  std::map<std::string, int> count;
  for (const auto& n : graph.nodes) ++count[n.domain.empty() ? n.op_type : n.domain + ":" + n.op_type];
  std::vector<std::pair<std::string, int>> sorted(count.begin(), count.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string s;
  for (const auto& [op, n] : sorted) s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + op;
  return s;
}

}  // namespace onyx::cli
