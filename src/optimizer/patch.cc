#include "optimizer/patch.h"

#include <functional>
#include <queue>
#include <set>
#include <unordered_map>

#include "optimizer/graph_index.h"

namespace onyx::optimizer {

Status sort_topologically(ir::Graph& graph) {
  auto& nodes = graph.nodes;
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto& o : nodes[i].outputs)
      if (!o.empty()) producer.emplace(o, i);
  std::vector<std::vector<size_t>> consumers(nodes.size());
  std::vector<int> pending(nodes.size(), 0);
  bool sorted = true;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& name : node_reads(nodes[i])) {
      auto it = producer.find(name);
      if (it == producer.end()) continue;
      if (it->second >= i) sorted = false;
      consumers[it->second].push_back(i);
      ++pending[i];
    }
  }
  if (sorted) return Status::Ok();
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (pending[i] == 0) ready.push(i);
  std::vector<size_t> order;
  order.reserve(nodes.size());
  while (!ready.empty()) {
    const size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (size_t c : consumers[i])
      if (--pending[c] == 0) ready.push(c);
  }
  if (order.size() != nodes.size()) {
    for (size_t i = 0; i < nodes.size(); ++i)
      if (pending[i] > 0) return invalid_model("the graph has a cycle through node ", nodes[i].label());
  }
  std::vector<ir::Node> out;
  out.reserve(nodes.size());
  for (size_t i : order) out.push_back(std::move(nodes[i]));
  nodes = std::move(out);
  return Status::Ok();
}

Status apply_patch(ir::Graph& graph, Patch patch) {
  std::vector<bool> removed(graph.nodes.size(), false);
  size_t first_removed = graph.nodes.size();
  for (size_t i : patch.remove_nodes) {
    if (i >= graph.nodes.size() || removed[i])
      return error(StatusCode::kInternal, "patch removes node #", i, ", which is out of range or listed twice");
    removed[i] = true;
    first_removed = std::min(first_removed, i);
  }
  for (const auto& [name, t] : patch.add_initializers)
    if (name.empty() || graph.initializers.count(name))
      return error(StatusCode::kInternal, "patch adds initializer '", name, "', which already exists");

  std::vector<ir::Node> nodes;
  nodes.reserve(graph.nodes.size() + patch.add_nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (i == first_removed)
      for (auto& n : patch.add_nodes) nodes.push_back(std::move(n));
    if (!removed[i]) nodes.push_back(std::move(graph.nodes[i]));
  }
  if (first_removed == graph.nodes.size())
    for (auto& n : patch.add_nodes) nodes.push_back(std::move(n));
  graph.nodes = std::move(nodes);
  for (auto& [name, t] : patch.add_initializers) graph.initializers.emplace(name, std::move(t));

  if (!patch.replace_uses.empty()) {
    std::unordered_map<std::string, std::string> to(patch.replace_uses.begin(), patch.replace_uses.end());
    auto resolve = [&](std::string name) {
      for (size_t hops = 0; hops <= to.size(); ++hops) {  // follows chains a -> b -> c
        auto it = to.find(name);
        if (it == to.end()) break;
        name = it->second;
      }
      return name;
    };
    for (auto& n : graph.nodes)
      for (auto& in : n.inputs)
        if (!in.empty() && to.count(in)) in = resolve(in);
  }
  return sort_topologically(graph);
}

}  // namespace onyx::optimizer
