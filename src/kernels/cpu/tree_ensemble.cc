// ai.onnx.ml TreeEnsemble (version 5): X [N, F] of float, double or float16 -> Y [N, n_targets]
// of X's type.
//
// Interior nodes are the nodes_* tuples (index-addressed), leaves the leaf_* tuples; a child is
// a leaf index where nodes_trueleafs / nodes_falseleafs say so. Modes (nodes_modes, uint8):
// BRANCH_LEQ 0, LT 1, GTE 2, GT 3, EQ 4, NEQ 5, MEMBER 6; a MEMBER node tests X against the
// next NaN-delimited group of membership_values, in the order MEMBER nodes appear. Each tree
// (tree_roots) contributes its reached leaf's weight to that leaf's target; aggregate_function
// AVERAGE 0, SUM 1, MIN 2, MAX 3; then post_transform NONE 0, SOFTMAX 1, LOGISTIC 2,
// SOFTMAX_ZERO 3, PROBIT 4 over each row, as the spec numbers them, whatever n_targets is.
// ONNX Runtime 1.30 reads post_transform 1 and 2 swapped and skips LOGISTIC/SOFTMAX on
// single-target ensembles: this kernel follows the spec, so it differs from ORT there.
//
// Compiled at prepare (tree_ensemble_common.h); a malformed ensemble is an INVALID_MODEL error
// at session creation.
#include <cmath>

#include "kernels/kernel.h"
#include "kernels/tree_ensemble_common.h"

namespace onyx {
namespace {

const char* const kOp = "TreeEnsemble";

// A float, double or float16 tensor attribute as doubles; absent: empty (or an error if required).
Result<std::vector<double>> tensor_doubles(const KernelInfo& info, const std::string& name, bool required) {
  const Tensor* t = info.attr_tensor(name);
  if (!t) {
    if (required) return invalid_model(kOp, ": the ", name, " attribute is required");
    return std::vector<double>{};
  }
  std::vector<double> out(size_t(t->numel()));
  switch (t->dtype()) {
    case DataType::kFloat: for (int64_t i = 0; i < t->numel(); ++i) out[size_t(i)] = t->data<float>()[i]; break;
    case DataType::kDouble: for (int64_t i = 0; i < t->numel(); ++i) out[size_t(i)] = t->data<double>()[i]; break;
    case DataType::kFloat16: for (int64_t i = 0; i < t->numel(); ++i) out[size_t(i)] = float(t->data<Float16>()[i]); break;
    default: return invalid_model(kOp, ": ", name, " must be a float, double or float16 tensor, got ", t->describe());
  }
  return out;
}

class TreeEnsembleKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const std::vector<int64_t> features = info.attr_ints("nodes_featureids");
    const std::vector<int64_t> true_ids = info.attr_ints("nodes_truenodeids");
    const std::vector<int64_t> false_ids = info.attr_ints("nodes_falsenodeids");
    const std::vector<int64_t> true_leafs = info.attr_ints("nodes_trueleafs");
    const std::vector<int64_t> false_leafs = info.attr_ints("nodes_falseleafs");
    const std::vector<int64_t> missing = info.attr_ints("nodes_missing_value_tracks_true");
    const std::vector<int64_t> targets = info.attr_ints("leaf_targetids");
    const std::vector<int64_t> roots = info.attr_ints("tree_roots");
    ONYX_ASSIGN_OR_RETURN(std::vector<double> splits, tensor_doubles(info, "nodes_splits", true));
    ONYX_ASSIGN_OR_RETURN(std::vector<double> weights, tensor_doubles(info, "leaf_weights", true));
    ONYX_ASSIGN_OR_RETURN(std::vector<double> members, tensor_doubles(info, "membership_values", false));
    const Tensor* modes_t = info.attr_tensor("nodes_modes");
    if (!modes_t || modes_t->dtype() != DataType::kUInt8)
      return invalid_model(kOp, ": nodes_modes must be a uint8 tensor");
    const size_t n = features.size();
    for (auto [name, size] : {std::pair<const char*, size_t>{"nodes_truenodeids", true_ids.size()},
                              {"nodes_falsenodeids", false_ids.size()}, {"nodes_trueleafs", true_leafs.size()},
                              {"nodes_falseleafs", false_leafs.size()}, {"nodes_splits", splits.size()},
                              {"nodes_modes", size_t(modes_t->numel())}})
      if (size != n) return invalid_model(kOp, ": ", name, " has ", size, " entries, nodes_featureids ", n);
    if (!missing.empty() && missing.size() != n)
      return invalid_model(kOp, ": nodes_missing_value_tracks_true has ", missing.size(), " entries, nodes_featureids ", n);
    if (weights.size() != targets.size())
      return invalid_model(kOp, ": leaf_weights has ", weights.size(), " entries, leaf_targetids ", targets.size());
    const int64_t aggregate = info.attr_int("aggregate_function", 1);
    const int64_t transform = info.attr_int("post_transform", 0);
    if (aggregate < 0 || aggregate > 3) return invalid_model(kOp, ": aggregate_function ", aggregate, " is not in [0, 3]");
    if (transform < 0 || transform > 4) return invalid_model(kOp, ": post_transform ", transform, " is not in [0, 4]");
    if (!info.has_attr("n_targets")) return invalid_model(kOp, ": the n_targets attribute is required");

    trees::EnsembleSpec spec;
    spec.n_targets = info.attr_int("n_targets", 1);
    spec.aggregate = trees::Aggregate(aggregate);  // the spec's numbering is the enum's
    transform_ = trees::PostTransform(transform);
    // Membership sets: groups of membership_values, each ended by a NaN (a last group may omit it).
    size_t next_member = 0;
    auto take_set = [&]() -> Result<int64_t> {
      if (next_member >= members.size())
        return invalid_model(kOp, ": membership_values has fewer sets than there are BRANCH_MEMBER nodes");
      std::vector<double> set;
      while (next_member < members.size() && !std::isnan(members[next_member])) set.push_back(members[next_member++]);
      ++next_member;  // the NaN
      spec.member_sets.push_back(std::move(set));
      return int64_t(spec.member_sets.size()) - 1;
    };
    const int64_t leaves = int64_t(targets.size());
    spec.nodes.resize(n + size_t(leaves));
    const uint8_t* modes = modes_t->data<uint8_t>();
    for (size_t i = 0; i < n; ++i) {
      trees::EnsembleSpec::Node& nd = spec.nodes[i];
      if (modes[i] > 6) return invalid_model(kOp, ": nodes_modes[", i, "] = ", int(modes[i]), " is not a mode (0..6)");
      nd.mode = trees::Mode(modes[i]);
      nd.feature = features[i];
      nd.threshold = splits[i];
      nd.missing_tracks_true = !missing.empty() && missing[i] != 0;
      if (nd.mode == trees::Mode::kMember) { ONYX_ASSIGN_OR_RETURN(nd.member_set, take_set()); }
      for (auto [id, leaf, slot] : {std::tuple{true_ids[i], true_leafs[i], &nd.true_child},
                                    std::tuple{false_ids[i], false_leafs[i], &nd.false_child}}) {
        const int64_t limit = leaf ? leaves : int64_t(n);
        if (id < 0 || id >= limit)
          return invalid_model(kOp, ": node ", i, "'s child ", id, " is not a ", leaf ? "leaf" : "node", " index (",
                               limit, " of them)");
        *slot = leaf ? int64_t(n) + id : id;
      }
    }
    if (next_member < members.size())
      return invalid_model(kOp, ": membership_values has more sets than there are BRANCH_MEMBER nodes");
    for (int64_t j = 0; j < leaves; ++j) spec.contributions.push_back({int64_t(n) + j, targets[size_t(j)], weights[size_t(j)]});
    for (int64_t r : roots) {
      if (r < 0 || r >= int64_t(n)) return invalid_model(kOp, ": tree root ", r, " is not a node index (", n, " nodes)");
      spec.roots.push_back(r);
    }
    targets_ = spec.n_targets;
    ONYX_ASSIGN_OR_RETURN(float_trees_, trees::compile_ensemble<float>(spec, kOp));
    ONYX_ASSIGN_OR_RETURN(double_trees_, trees::compile_ensemble<double>(spec, kOp));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::kFloat && x.dtype() != DataType::kDouble && x.dtype() != DataType::kFloat16)
      return not_implemented(kOp, " takes X of float, double or float16, not ", data_type_name(x.dtype()));
    int64_t rows = 0, features = 0;
    ONYX_RETURN_IF_ERROR(trees::batch_shape(x, kOp, &rows, &features));
    ONYX_ASSIGN_OR_RETURN(Tensor scores_t, ctx.allocate_scratch(DataType::kDouble, Shape{rows, targets_}));
    double* scores = scores_t.data<double>();
    auto scratch = [&](DataType t, const Shape& s) { return ctx.allocate_scratch(t, s); };
    if (x.dtype() == DataType::kDouble) {
      ONYX_RETURN_IF_ERROR(trees::evaluate_ensemble(double_trees_, x, rows, features, scores, scratch, kOp));
    } else {
      ONYX_RETURN_IF_ERROR(trees::evaluate_ensemble(float_trees_, x, rows, features, scores, scratch, kOp));
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), Shape{rows, targets_}));
    for (int64_t r = 0; r < rows; ++r) {
      double* row = scores + r * targets_;
      trees::post_transform_row(transform_, row, targets_);
      for (int64_t t = 0; t < targets_; ++t) {
        const int64_t k = r * targets_ + t;
        if (x.dtype() == DataType::kDouble) y->data<double>()[k] = row[t];
        else if (x.dtype() == DataType::kFloat) y->data<float>()[k] = float(row[t]);
        else y->data<Float16>()[k] = Float16(float(row[t]));
      }
    }
    return Status::Ok();
  }

 private:
  int64_t targets_ = 1;
  trees::PostTransform transform_ = trees::PostTransform::kNone;
  trees::CompiledEnsemble<float> float_trees_;
  trees::CompiledEnsemble<double> double_trees_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "TreeEnsemble", 5, kLatestOpset, TreeEnsembleKernel);

}  // namespace onyx
