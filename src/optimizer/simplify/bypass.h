// Shared by the eliminations of nodes whose output equals an input (Identity, Dropout in
// inference, Cast to the same type).
#pragma once
#include <optional>
#include <string>

#include "optimizer/graph_index.h"
#include "optimizer/patch.h"

namespace onyx::optimizer {

// The edit removing node `i`, whose output `out` is the same value as the value `in`, with
// the node's other outputs unused (the caller checks). Readers of `out` read `in` instead.
// When `out` is a graph output (its name must stay), `in`'s producer writes `out` instead and
// `in`'s readers follow, provided `in` is an intermediate (made by a node; not a graph input,
// output or subgraph capture). nullopt when neither applies, or when a subgraph reads `out`.
inline std::optional<Patch> bypass_node(const GraphIndex& g, size_t i, const std::string& in, const std::string& out) {
  if (in.empty() || out.empty() || in == out || g.is_captured(out)) return std::nullopt;
  Patch p;
  if (!g.is_graph_output(out)) {
    p.remove_nodes = {i};
    p.replace_uses = {{out, in}};
    return p;
  }
  auto prod = g.producer(in);
  if (!prod || g.is_graph_output(in) || g.is_captured(in) || g.is_graph_input(in)) return std::nullopt;
  ir::Node renamed = g.node(*prod);
  for (auto& o : renamed.outputs)
    if (o == in) o = out;
  p.remove_nodes = {*prod, i};
  p.add_nodes.push_back(std::move(renamed));
  p.replace_uses = {{in, out}};
  return p;
}

}  // namespace onyx::optimizer
