// Which values a node reads, for the training graph's rewrites (transpose_folding,
// product_scale_folding): a value read only inside a subgraph still counts as read.
#pragma once
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

}  // namespace onyx::training
