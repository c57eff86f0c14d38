// dead_node_elimination (every phase): nodes none of whose outputs reach a graph output (directly,
// through other nodes, or through what a subgraph reads) go.
#include <unordered_map>
#include <unordered_set>

#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

class DeadNodeElimination final : public Pass {
 public:
  std::string name() const override { return "dead_node_elimination"; }
  Result<bool> run(PassContext& ctx) const override {
    ir::Graph& graph = ctx.model.graph;
    std::unordered_map<std::string, size_t> producer;
    for (size_t i = 0; i < graph.nodes.size(); ++i)
      for (const auto& o : graph.nodes[i].outputs)
        if (!o.empty()) producer.emplace(o, i);
    std::vector<bool> live(graph.nodes.size(), false);
    std::vector<std::string> work;
    std::unordered_set<std::string> seen;
    for (const auto& vi : graph.outputs) work.push_back(vi.name);
    while (!work.empty()) {
      std::string name = std::move(work.back());
      work.pop_back();
      if (!seen.insert(name).second) continue;
      auto it = producer.find(name);
      if (it == producer.end() || live[it->second]) continue;
      live[it->second] = true;
      for (auto& r : node_reads(graph.nodes[it->second])) work.push_back(std::move(r));
    }
    std::vector<ir::Node> kept;
    for (size_t i = 0; i < graph.nodes.size(); ++i)
      if (live[i]) kept.push_back(std::move(graph.nodes[i]));
    const bool changed = kept.size() != graph.nodes.size();
    graph.nodes = std::move(kept);
    return changed;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kSimplify, 90, DeadNodeElimination);
// Fusions and layout changes leave shape computations nothing reads any more.
ONYX_REGISTER_PASS(Phase::kFuse, 90, DeadNodeElimination);
ONYX_REGISTER_PASS(Phase::kLayout, 90, DeadNodeElimination);

}  // namespace onyx::optimizer
