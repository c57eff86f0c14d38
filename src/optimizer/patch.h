// Patch: a staged edit of one graph, as a rewrite rule returns it. Nothing changes until
// apply_patch; a rule inspects the graph through a GraphIndex and describes its edit here.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"

namespace onyx::optimizer {

struct Patch {
  // Nodes to delete, by index in the graph the rule saw.
  std::vector<size_t> remove_nodes;
  // Nodes to insert (where the first removed node stood, or at the end); the graph is then
  // put back in topological order.
  std::vector<ir::Node> add_nodes;
  // New initializers; a name already in use is an error.
  std::vector<std::pair<std::string, Tensor>> add_initializers;
  // (from, to): every node input reading `from` reads `to` instead. Graph outputs and
  // subgraph captures are never rewritten, so a rule must not replace such a value.
  std::vector<std::pair<std::string, std::string>> replace_uses;
  // Opset imports the added nodes need (domain -> version); added to the model when missing.
  std::map<std::string, int64_t> opset_imports;

  bool empty() const {
    return remove_nodes.empty() && add_nodes.empty() && add_initializers.empty() && replace_uses.empty();
  }
};

// Applies `patches`, all staged against the same graph and not overlapping (no node removed
// twice), then restores topological order. Each patch's new nodes go where its first removed
// node stood. INTERNAL error for a malformed patch: a node index out of range or removed
// twice, an initializer name that exists (the graph may then be partly edited). A patch that
// leaves a value undefined is caught by verify_graph, not here.
Status apply_patches(ir::Graph& graph, std::vector<Patch> patches);
inline Status apply_patch(ir::Graph& graph, Patch patch) {
  std::vector<Patch> one;
  one.push_back(std::move(patch));
  return apply_patches(graph, std::move(one));
}

// Reorders graph.nodes topologically (reads include subgraph captures), keeping the current
// order among nodes that are ready together; a graph already in order is left as it is.
// INVALID_MODEL on a cycle (graph unchanged); values nothing produces count as available
// (graph inputs, initializers, or undefined — verify_graph reports those).
Status sort_topologically(ir::Graph& graph);

}  // namespace onyx::optimizer
