// GraphIndex: a read-only view of one graph for rewrite rules: who produces and who reads
// each value, which values are constants, graph inputs/outputs or read by subgraphs, and the
// static types. Built from the graph as it is; any edit to the graph invalidates it.
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "ops/infer_graph.h"

namespace onyx::optimizer {

// Names a graph reads that it does not define itself, recursively through its subgraphs
// (the values it captures from enclosing graphs).
void collect_free_names(const ir::Graph& g, std::set<std::string>& out);
// Every value a node reads: its non-empty inputs, then what its subgraphs capture.
std::vector<std::string> node_reads(const ir::Node& n);
// True when the node has a graph-valued attribute (If, Loop, Scan, SequenceMap).
bool has_subgraph(const ir::Node& n);

class GraphIndex {
 public:
  // `types` (may be null) are the static types of `graph`'s values; both must outlive the index.
  GraphIndex(const ir::Graph& graph, const ops::GraphTypes* types);

  const ir::Graph& graph() const { return graph_; }
  size_t num_nodes() const { return graph_.nodes.size(); }
  const ir::Node& node(size_t i) const { return graph_.nodes[i]; }

  // Index of the node producing `name`; nullopt for graph inputs, initializers and unknowns.
  std::optional<size_t> producer(const std::string& name) const;
  // The producing node when it has op type `op` in the default domain; else null.
  const ir::Node* producer_of_type(const std::string& name, const std::string& op) const;
  // Indices of the nodes reading `name` as a direct input (once per node).
  const std::vector<size_t>& consumers(const std::string& name) const;
  bool is_graph_input(const std::string& name) const { return graph_inputs_.count(name) > 0; }
  bool is_graph_output(const std::string& name) const { return graph_outputs_.count(name) > 0; }
  // True when a subgraph of some node reads `name` from this graph (outer-scope capture).
  bool is_captured(const std::string& name) const { return captured_.count(name) > 0; }
  // The value of `name` when it is an initializer that is not also a graph input (so it can
  // not be fed); null otherwise.
  const Tensor* constant(const std::string& name) const;
  // The single element of constant `name` as a double when it holds exactly one element of a
  // float type; nullopt otherwise.
  std::optional<double> scalar(const std::string& name) const;

  // True when `name` is read by exactly one node input of exactly one node, is not a graph
  // output and is not captured by a subgraph: the producer may be rewritten together with
  // that reader and the value then disappear.
  bool single_use(const std::string& name) const;
  // True when nothing reads `name`: no node, no subgraph, no graph output.
  bool unused(const std::string& name) const;

  // The static type of `name`, or null when unknown.
  const ir::TypeInfo* type(const std::string& name) const;
  // Element type of a tensor value, kUndefined when unknown.
  DataType elem_type(const std::string& name) const;
  // Rank of a tensor value when known.
  std::optional<int64_t> rank(const std::string& name) const;
  // Concrete dims of a tensor value when every dim is known.
  std::optional<Shape> shape(const std::string& name) const;
  // The last dim when known.
  std::optional<int64_t> last_dim(const std::string& name) const;

  // A value name used nowhere in the graph or its subgraphs, made from `base`; each call
  // returns a different name.
  std::string fresh_name(const std::string& base) const;

 private:
  const ir::Graph& graph_;
  const ops::GraphTypes* types_;
  std::unordered_map<std::string, size_t> producer_;
  std::unordered_map<std::string, std::vector<size_t>> consumers_;
  std::unordered_map<std::string, int> input_reads_;  // direct node-input reads, counting repeats
  std::set<std::string> graph_inputs_, graph_outputs_, captured_;
  mutable std::set<std::string> taken_;  // every name in use, plus names handed out
};

}  // namespace onyx::optimizer
