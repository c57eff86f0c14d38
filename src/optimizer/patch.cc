#include "optimizer/patch.h"

#include <functional>
#include <queue>
#include <set>
#include <unordered_map>

#include "optimizer/graph_index.h"

namespace onyx::optimizer {

namespace {

// The values node `n` reads: its inputs, plus subgraph captures when it has subgraphs.
template <typename F>
void for_each_read(const ir::Node& n, F&& fn) {
  if (has_subgraph(n)) {
    for (const auto& name : node_reads(n)) fn(name);
  } else {
    for (const auto& name : n.inputs)
      if (!name.empty()) fn(name);
  }
}

}  // namespace

Status sort_topologically(ir::Graph& graph) {
  auto& nodes = graph.nodes;
  std::unordered_map<std::string, size_t> producer;
  producer.reserve(nodes.size() * 2);
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto& o : nodes[i].outputs)
      if (!o.empty()) producer.emplace(o, i);
  bool sorted = true;
  for (size_t i = 0; i < nodes.size() && sorted; ++i)
    for_each_read(nodes[i], [&](const std::string& name) {
      auto it = producer.find(name);
      if (it != producer.end() && it->second >= i) sorted = false;
    });
  if (sorted) return Status::Ok();
  std::vector<std::vector<size_t>> consumers(nodes.size());
  std::vector<int> pending(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i)
    for_each_read(nodes[i], [&](const std::string& name) {
      auto it = producer.find(name);
      if (it == producer.end()) return;
      consumers[it->second].push_back(i);
      ++pending[i];
    });
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

Status apply_patches(ir::Graph& graph, std::vector<Patch> patches) {
  const size_t n = graph.nodes.size();
  std::vector<bool> removed(n, false);
  // New nodes by insertion point: before old node i, or at the end (i == n).
  std::vector<std::vector<ir::Node>> insert(n + 1);
  std::unordered_map<std::string, std::string> to;
  for (auto& patch : patches) {
    size_t first = n;
    for (size_t i : patch.remove_nodes) {
      if (i >= n || removed[i])
        return error(StatusCode::kInternal, "patch removes node #", i, ", which is out of range or removed twice");
      removed[i] = true;
      first = std::min(first, i);
    }
    for (auto& node : patch.add_nodes) insert[first].push_back(std::move(node));
    for (auto& [name, t] : patch.add_initializers) {
      if (name.empty() || !graph.initializers.emplace(name, std::move(t)).second)
        return error(StatusCode::kInternal, "patch adds initializer '", name, "', which already exists");
    }
    for (auto& [from, dest] : patch.replace_uses) to[from] = dest;
  }
  std::vector<ir::Node> nodes;
  nodes.reserve(n);
  for (size_t i = 0; i <= n; ++i) {
    for (auto& node : insert[i]) nodes.push_back(std::move(node));
    if (i < n && !removed[i]) nodes.push_back(std::move(graph.nodes[i]));
  }
  graph.nodes = std::move(nodes);

  if (!to.empty()) {
    auto resolve = [&](std::string name) {
      for (size_t hops = 0; hops <= to.size(); ++hops) {  // follows chains a -> b -> c
        auto it = to.find(name);
        if (it == to.end()) break;
        name = it->second;
      }
      return name;
    };
    for (auto& node : graph.nodes)
      for (auto& in : node.inputs)
        if (!in.empty() && to.count(in)) in = resolve(in);
  }
  return sort_topologically(graph);
}

}  // namespace onyx::optimizer
