// Static type and shape inference over a graph, using the per-op rules (op_rule.h).
// Best-effort: unknown stays unknown; a rule's error becomes a warning, never a load failure.
#pragma once
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"

namespace onyx::ops {

struct GraphTypes {
  // What the rules derived for node outputs (only these are checked against kernels at run).
  std::unordered_map<std::string, ir::TypeInfo> inferred;
  // Inferred merged with what the model declares (inputs, initializers, value_info, outputs).
  std::unordered_map<std::string, ir::TypeInfo> all;
  // One line per rule that reported a contradiction.
  std::vector<std::string> warnings;
  // Nodes whose op has no rule yet (by op name), for `onyx info`.
  std::vector<std::string> ops_without_rule;
};

GraphTypes infer_graph_types(const ir::Graph& graph, const std::map<std::string, int64_t>& opsets);

// True when `actual` (a run-time value's type and shape) fits the static type `expected`.
// Unknown parts of `expected` fit anything. On a misfit, `why` says what differs.
bool value_fits_type(const ir::TypeInfo& expected, DataType actual_type, const Shape& actual_shape, std::string* why);

}  // namespace onyx::ops
