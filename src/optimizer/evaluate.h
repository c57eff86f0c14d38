// Runs one node on constant inputs with the registered CPU kernel, at optimisation time.
#pragma once
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "ir/graph.h"

namespace onyx::optimizer {

// Computes `node` (no subgraphs) at `opset` from `inputs` (one per node input; null for an
// omitted one) with the CPU kernel the planner would pick. Returns one Value per node output
// (none for an omitted output). NOT_IMPLEMENTED when there is no kernel; the kernel's own
// error when it refuses the inputs. The results own their memory (no arena).
Result<std::vector<Value>> evaluate_node(const ir::Node& node, int64_t opset, const std::vector<const Tensor*>& inputs);

}  // namespace onyx::optimizer
