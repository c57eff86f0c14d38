// Reading TreeEnsembleClassifier/Regressor 1 and 3 attributes; see tree_ensemble_legacy.h.
#include "kernels/tree_ensemble_legacy.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace onyx::trees {
namespace {

struct PairHash {
  size_t operator()(const std::pair<int64_t, int64_t>& p) const {
    return std::hash<int64_t>()(p.first) * 1000003u ^ std::hash<int64_t>()(p.second);
  }
};

}  // namespace

Result<std::vector<double>> read_doubles(const KernelInfo& info, const std::string& name, const std::string& op) {
  if (const Tensor* t = info.attr_tensor(name + "_as_tensor")) {
    std::vector<double> out(size_t(t->numel()));
    if (t->dtype() == DataType::kDouble) {
      std::copy(t->data<double>(), t->data<double>() + t->numel(), out.begin());
    } else if (t->dtype() == DataType::kFloat) {
      std::copy(t->data<float>(), t->data<float>() + t->numel(), out.begin());
    } else {
      return invalid_model(op, ": ", name, "_as_tensor must be a double (or float) tensor, got ", t->describe());
    }
    return out;
  }
  const std::vector<float> f = info.attr_floats(name);
  return std::vector<double>(f.begin(), f.end());
}

Status read_legacy_ensemble(const KernelInfo& info, const std::string& op, const std::string& prefix,
                            EnsembleSpec* spec) {
  const std::vector<int64_t> tree_ids = info.attr_ints("nodes_treeids");
  const std::vector<int64_t> node_ids = info.attr_ints("nodes_nodeids");
  const std::vector<int64_t> features = info.attr_ints("nodes_featureids");
  const std::vector<int64_t> true_ids = info.attr_ints("nodes_truenodeids");
  const std::vector<int64_t> false_ids = info.attr_ints("nodes_falsenodeids");
  const std::vector<int64_t> missing = info.attr_ints("nodes_missing_value_tracks_true");
  const std::vector<std::string> modes = info.attr_strings("nodes_modes");
  ONYX_ASSIGN_OR_RETURN(std::vector<double> values, read_doubles(info, "nodes_values", op));
  const size_t n = tree_ids.size();
  auto check_length = [&](const char* name, size_t size, bool optional) -> Status {
    if (size == n || (optional && size == 0)) return Status::Ok();
    return invalid_model(op, ": ", name, " has ", size, " entries, nodes_treeids ", n);
  };
  ONYX_RETURN_IF_ERROR(check_length("nodes_nodeids", node_ids.size(), false));
  ONYX_RETURN_IF_ERROR(check_length("nodes_featureids", features.size(), false));
  ONYX_RETURN_IF_ERROR(check_length("nodes_truenodeids", true_ids.size(), false));
  ONYX_RETURN_IF_ERROR(check_length("nodes_falsenodeids", false_ids.size(), false));
  ONYX_RETURN_IF_ERROR(check_length("nodes_modes", modes.size(), false));
  ONYX_RETURN_IF_ERROR(check_length("nodes_values", values.size(), false));
  ONYX_RETURN_IF_ERROR(check_length("nodes_missing_value_tracks_true", missing.size(), true));

  std::unordered_map<std::pair<int64_t, int64_t>, int64_t, PairHash> index;
  index.reserve(n);
  std::map<int64_t, int64_t> root_of_tree;  // tree id -> first node, in tree id order
  for (size_t i = 0; i < n; ++i) {
    if (!index.emplace(std::make_pair(tree_ids[i], node_ids[i]), int64_t(i)).second)
      return invalid_model(op, ": node (tree ", tree_ids[i], ", node ", node_ids[i], ") appears twice");
    root_of_tree.emplace(tree_ids[i], int64_t(i));
  }
  spec->nodes.resize(n);
  for (size_t i = 0; i < n; ++i) {
    EnsembleSpec::Node& nd = spec->nodes[i];
    ONYX_ASSIGN_OR_RETURN(nd.mode, parse_mode(modes[i], op));
    if (nd.mode == Mode::kLeaf) continue;
    nd.feature = features[i];
    nd.threshold = values[i];
    nd.missing_tracks_true = !missing.empty() && missing[i] != 0;
    for (auto [id, slot] : {std::make_pair(true_ids[i], &nd.true_child), std::make_pair(false_ids[i], &nd.false_child)}) {
      auto it = index.find({tree_ids[i], id});
      if (it == index.end())
        return invalid_model(op, ": node (tree ", tree_ids[i], ", node ", node_ids[i], ") has child ", id,
                             ", which is not a node of that tree");
      *slot = it->second;
    }
  }
  for (const auto& [tree, root] : root_of_tree) spec->roots.push_back(root);

  const std::vector<int64_t> w_trees = info.attr_ints(prefix + "_treeids");
  const std::vector<int64_t> w_nodes = info.attr_ints(prefix + "_nodeids");
  const std::vector<int64_t> w_ids = info.attr_ints(prefix + "_ids");
  ONYX_ASSIGN_OR_RETURN(std::vector<double> weights, read_doubles(info, prefix + "_weights", op));
  const size_t m = w_trees.size();
  if (w_nodes.size() != m || w_ids.size() != m || weights.size() != m)
    return invalid_model(op, ": ", prefix, "_treeids, _nodeids, _ids and _weights have ", m, ", ", w_nodes.size(), ", ",
                         w_ids.size(), " and ", weights.size(), " entries; they must match");
  spec->contributions.reserve(m);
  for (size_t k = 0; k < m; ++k) {
    auto it = index.find({w_trees[k], w_nodes[k]});
    if (it == index.end())
      return invalid_model(op, ": weight ", k, " is for (tree ", w_trees[k], ", node ", w_nodes[k],
                           "), which is not a node of the ensemble");
    spec->contributions.push_back({it->second, w_ids[k], weights[k]});
  }
  return Status::Ok();
}

}  // namespace onyx::trees
