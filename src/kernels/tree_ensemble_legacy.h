// The node and weight attributes of TreeEnsembleClassifier and TreeEnsembleRegressor
// (ai.onnx.ml 1 and 3), read into an EnsembleSpec (tree_ensemble_common.h).
//
// Nodes are named by (tree id, node id) pairs; every array of nodes_* has one entry per node
// (nodes_missing_value_tracks_true and nodes_hitrates may be absent). Trees are evaluated in
// increasing tree id order and each tree's root is its first node in the arrays (ONNX's
// reference does the same). `*_as_tensor` attributes (double) replace their float forms.
// Errors, all INVALID_MODEL naming the op: arrays of mismatched lengths, a duplicate
// (tree, node), a child or a weight naming a node that does not exist, unknown modes.
#pragma once
#include <string>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/tree_ensemble_common.h"

namespace onyx::trees {

// Reads nodes_* into spec->nodes/roots and the weights `<prefix>_treeids`, `<prefix>_nodeids`,
// `<prefix>_ids`, `<prefix>_weights` (or `_weights_as_tensor`) into spec->contributions with
// their ids as targets (range-checked later, by compile_ensemble).
Status read_legacy_ensemble(const KernelInfo& info, const std::string& op, const std::string& prefix,
                            EnsembleSpec* spec);

// A float-list attribute or its `_as_tensor` double form (the tensor wins); empty if neither.
Result<std::vector<double>> read_doubles(const KernelInfo& info, const std::string& name, const std::string& op);

}  // namespace onyx::trees
