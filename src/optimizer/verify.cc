#include "optimizer/verify.h"

#include <set>
#include <unordered_set>

#include "optimizer/graph_index.h"

namespace onyx::optimizer {

Status verify_graph(const ir::Graph& graph) {
  auto bad = [](auto&&... parts) { return error(StatusCode::kInternal, parts...); };
  std::unordered_set<std::string> defined;
  std::set<std::string> inputs;
  for (const auto& vi : graph.inputs) {
    if (vi.name.empty()) return bad("a graph input has no name");
    if (!inputs.insert(vi.name).second) return bad("graph input '", vi.name, "' is listed twice");
    defined.insert(vi.name);
  }
  for (const auto& kv : graph.initializers) defined.insert(kv.first);
  for (const ir::Node& n : graph.nodes) {
    for (const auto& in : n.inputs)
      if (!in.empty() && !defined.count(in))
        return bad("node ", n.label(), " reads '", in, "', which no graph input, initializer or earlier node defines");
    if (has_subgraph(n)) {
      for (const auto& name : node_reads(n))
        if (!defined.count(name))
          return bad("a subgraph of node ", n.label(), " reads '", name,
                     "', which no graph input, initializer or earlier node defines");
    }
    for (const auto& o : n.outputs) {
      if (o.empty()) continue;
      if (inputs.count(o)) return bad("node ", n.label(), " writes graph input '", o, "'");
      if (graph.initializers.count(o)) return bad("node ", n.label(), " writes initializer '", o, "'");
      if (!defined.insert(o).second) return bad("value '", o, "' is produced twice (again by node ", n.label(), ")");
    }
  }
  for (const auto& vi : graph.outputs)
    if (vi.name.empty() || !defined.count(vi.name)) return bad("graph output '", vi.name, "' is not defined");
  return Status::Ok();
}

}  // namespace onyx::optimizer
