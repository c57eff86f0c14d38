// The gradient builder: from a graph, the values to differentiate with respect to (xs) and
// the value differentiated (y), it appends the backward nodes to the graph and returns the
// names of the gradients, one per x. The gradient of a non-scalar y is that of sum(y) (a seed
// of ones), or of <y, seed> when a seed value is named. Several ys differentiate the sum of
// their <y, seed> (a module's outputs, each with the gradient flowing into it). One rule per
// op (gradient_rule.h); gradients of a value read twice are summed; an x that no y depends on
// gets zeros.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "ops/infer_graph.h"

namespace onyx::training {

struct GradientRequest {
  std::vector<std::string> xs;  // graph inputs, initializers or intermediate values
  std::string y;
  std::string seed;  // the gradient flowing into y; "" for ones of y's shape
  // Further values differentiated, each with the gradient flowing into it (a value name).
  std::vector<std::pair<std::string, std::string>> more_ys;
};

// Appends the backward nodes (and their constants) to graph.nodes / graph.initializers. The
// graph keeps its forward nodes and outputs; the caller exposes the returned names as it
// needs. `types` is static inference over the graph as given. Errors: NOT_FOUND for an x or
// y the graph does not have; NOT_IMPLEMENTED for an op on the path from y with no rule, naming
// the op, the node and the path from y to it.
Result<std::vector<std::string>> build_gradients(ir::Graph& graph, const std::map<std::string, int64_t>& opsets,
                                                 const ops::GraphTypes& types, const GradientRequest& request);

}  // namespace onyx::training
