// Which values a node reads, for the training graph's rewrites (transpose_folding,
// product_scale_folding): a value read only inside a subgraph still counts as read.
#pragma once
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace onyx::training {

// Adds every value `node` reads to `into`: its inputs (omitted optional ones, "", left out),
// and every input of every node inside its subgraphs (If branches, Loop and Scan bodies), at
// any depth: an over-approximation of what the subgraphs read from outside.
inline void names_read(const ir::Node& node, std::set<std::string>& into) {
  for (const std::string& in : node.inputs)
    if (!in.empty()) into.insert(in);
  for (const auto& [_, attr] : node.attributes) {
    std::vector<std::shared_ptr<ir::Graph>> graphs = attr.graphs;
    if (attr.g) graphs.push_back(attr.g);
    for (const auto& sub : graphs)
      for (const ir::Node& inner : sub->nodes) names_read(inner, into);
  }
}

// For every value read in `g`, the indices of the nodes that read it (names_read), ascending.
inline std::map<std::string, std::vector<size_t>> readers_by_node(const ir::Graph& g) {
  std::map<std::string, std::vector<size_t>> readers;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    std::set<std::string> read;
    names_read(g.nodes[k], read);
    for (const std::string& v : read) readers[v].push_back(k);
  }
  return readers;
}

// The names of `g`'s outputs.
inline std::set<std::string> graph_output_names(const ir::Graph& g) {
  std::set<std::string> names;
  for (const ir::ValueInfo& o : g.outputs) names.insert(o.name);
  return names;
}

// Drops the nodes at `indices`, keeping the others in order.
inline void erase_nodes(ir::Graph& g, const std::set<size_t>& indices) {
  std::vector<ir::Node> kept;
  kept.reserve(g.nodes.size() - std::min(g.nodes.size(), indices.size()));
  for (size_t k = 0; k < g.nodes.size(); ++k)
    if (!indices.count(k)) kept.push_back(std::move(g.nodes[k]));
  g.nodes = std::move(kept);
}

}  // namespace onyx::training
