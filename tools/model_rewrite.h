// Loading, optimising and saving a model file for the commands that rewrite models
// (`onyx optimize`, `onyx quantize`): the same loader and passes a session uses, without
// planning kernels, so that no weight is packed or dropped before the model is saved.
#pragma once
#include <string>

#include "core/status.h"
#include "ir/graph.h"
#include "optimizer/pass_manager.h"

namespace onyx::cli {

struct OptimizedModel {
  ir::Model model;
  optimizer::OptimizeReport report;  // empty at level 0
};

// Loads `path` and runs the optimiser at `level` (SessionOptions::graph_optimization_level).
Result<OptimizedModel> load_and_optimize(const std::string& path, int level);

// Writes `model` to `path`; with `external_data` non-empty, initializers of 1 KiB or more go
// to that file (relative to `path`'s folder).
Status save_rewritten(const ir::Model& model, const std::string& path, const std::string& external_data);

// "12 MatMul, 3 Add, ..." by count, most first.
std::string op_histogram(const ir::Graph& graph);

}  // namespace onyx::cli
