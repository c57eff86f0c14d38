// The IR verifier the PassManager runs before the first pass and after every pass.
#pragma once
#include "core/status.h"
#include "ir/graph.h"

namespace onyx::optimizer {

// Checks that `graph` is well formed and topologically ordered: every value has at most one
// producer; no node writes a graph input or an initializer; every node input and every name
// a subgraph reads from this graph is a graph input, an initializer, or the output of an
// earlier node; every graph output is defined; graph input names are distinct.
// Returns INTERNAL naming the first offending node or value.
Status verify_graph(const ir::Graph& graph);

}  // namespace onyx::optimizer
