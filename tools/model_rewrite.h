// Loading, optimising and saving a model file for the commands that rewrite models
// (`onyx optimize`, `onyx quantize`): the same loader and passes a session uses, without
// planning kernels, so that no weight is packed or dropped before the model is saved.
#pragma once
#include <set>
#include <string>

#include "core/status.h"
#include "ir/graph.h"
#include "optimizer/pass_manager.h"

namespace onyx::cli {

// The arguments both rewriting commands take: MODEL, -o/--output OUT, --external-data NAME,
// --level L.
struct RewriteArgs {
  std::string model, out, external_data;
  int level = 2;
};

// Handles `flag` when it is one of RewriteArgs's (its value, if any, taken with `next`) or the
// model path (the first argument not starting with '-'); returns false for anything else.
template <typename Next>
Result<bool> parse_rewrite_arg(const std::string& flag, Next&& next, RewriteArgs& r) {
  if (flag == "-o" || flag == "--output") {
    ONYX_ASSIGN_OR_RETURN(r.out, next());
    return true;
  }
  if (flag == "--external-data") {
    ONYX_ASSIGN_OR_RETURN(r.external_data, next());
    return true;
  }
  if (flag == "--level") {
    ONYX_ASSIGN_OR_RETURN(std::string v, next());
    if (v != "0" && v != "1" && v != "2" && v != "3" && v != "99") return invalid_argument("--level takes 0, 1, 2, 3 or 99");
    r.level = std::stoi(v);
    return true;
  }
  if (!flag.empty() && flag[0] != '-' && r.model.empty()) {
    r.model = flag;
    return true;
  }
  return false;
}

struct OptimizedModel {
  ir::Model model;
  optimizer::OptimizeReport report;  // empty at level 0
};

// Loads `path` and runs the optimiser at `level` (SessionOptions::graph_optimization_level).
// With `fuse_only`, the fusion phase runs only the passes named there (static quantisation
// wants BatchNorm folded into Conv but the activations it calibrates left apart). The passes
// `disabled` names do not run (SessionOptions::disabled_optimizers; an unknown name is an error).
// With `target_provider` (a registry name, "CUDA"), fusions respect it as in a session whose
// first provider it is (optimizer::ProviderTarget).
Result<OptimizedModel> load_and_optimize(const std::string& path, int level,
                                         const std::set<std::string>* fuse_only = nullptr,
                                         const std::set<std::string>& disabled = {},
                                         const std::string& target_provider = "");

// Writes `model` to `path`; with `external_data` non-empty, initializers of 1 KiB or more go
// to that file (relative to `path`'s folder).
Status save_rewritten(const ir::Model& model, const std::string& path, const std::string& external_data);

// "12 MatMul, 3 Add, ..." by count, most first.
std::string op_histogram(const ir::Graph& graph);

}  // namespace onyx::cli
