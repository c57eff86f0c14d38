// Inlining of model-local functions: every node that calls a function (by domain and name)
// is replaced by the function's body, with formal inputs/outputs renamed to the call's
// actual values, internal values given fresh unique names, and attribute references
// (ref_attr_name) bound to the call's attributes or the function's defaults.
#pragma once
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace onyx::ir {

// Inlines calls in `graph` and its subgraphs, recursively (functions may call functions).
Status inline_functions(Graph& graph, const std::vector<Function>& functions);

}  // namespace onyx::ir
