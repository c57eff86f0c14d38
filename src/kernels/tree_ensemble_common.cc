// Compiling and evaluating tree ensembles; the layout and the rules are in tree_ensemble_common.h.
#include "kernels/tree_ensemble_common.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/parallel.h"

namespace onyx::trees {
namespace {

// PackedNode::feature_flags: the feature in the low bits, then what the comparison tests. A
// leaf has no flags and both children pointing at itself.
constexpr uint32_t kFeatureMask = (1u << 27) - 1;
constexpr uint32_t kMemberBit = 1u << 27;
constexpr uint32_t kMissingBit = 1u << 28;
constexpr uint32_t kGreaterBit = 1u << 29;
constexpr uint32_t kEqualBit = 1u << 30;
constexpr uint32_t kLessBit = 1u << 31;

uint32_t comparison_bits(Mode mode) {
  switch (mode) {
    case Mode::kLeq: return kLessBit | kEqualBit;
    case Mode::kLt: return kLessBit;
    case Mode::kGte: return kGreaterBit | kEqualBit;
    case Mode::kGt: return kGreaterBit;
    case Mode::kEq: return kEqualBit;
    case Mode::kNeq: return kLessBit | kGreaterBit;
    case Mode::kMember: return kMemberBit;
    case Mode::kLeaf: return 0;
  }
  return 0;
}

// A member node keeps its set's index in the threshold's bytes.
template <typename C>
C set_index_as_threshold(uint32_t index) {
  C value{};
  std::memcpy(&value, &index, sizeof(index));
  return value;
}
template <typename C>
uint32_t threshold_as_set_index(C threshold) {
  uint32_t index = 0;
  std::memcpy(&index, &threshold, sizeof(index));
  return index;
}

}  // namespace

Result<Mode> parse_mode(const std::string& text, const std::string& op) {
  static const char* const names[] = {"BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT",
                                      "BRANCH_EQ",  "BRANCH_NEQ", "BRANCH_MEMBER", "LEAF"};
  for (int i = 0; i < 8; ++i)
    if (text == names[i] && i != int(Mode::kMember)) return Mode(i);
  return invalid_model(op, ": unknown nodes_modes entry '", text, "'");
}

Result<Aggregate> parse_aggregate(const std::string& text, const std::string& op) {
  if (text == "SUM") return Aggregate::kSum;
  if (text == "AVERAGE") return Aggregate::kAverage;
  if (text == "MIN") return Aggregate::kMin;
  if (text == "MAX") return Aggregate::kMax;
  return invalid_model(op, ": unknown aggregate_function '", text, "'");
}

Result<PostTransform> parse_post_transform(const std::string& text, const std::string& op) {
  if (text == "NONE") return PostTransform::kNone;
  if (text == "SOFTMAX") return PostTransform::kSoftmax;
  if (text == "LOGISTIC") return PostTransform::kLogistic;
  if (text == "SOFTMAX_ZERO") return PostTransform::kSoftmaxZero;
  if (text == "PROBIT") return PostTransform::kProbit;
  return invalid_model(op, ": unknown post_transform '", text, "'");
}

template <typename C>
Result<CompiledEnsemble<C>> compile_ensemble(const EnsembleSpec& spec, const std::string& op) {
  const int64_t n = int64_t(spec.nodes.size());
  if (n >= (int64_t(1) << 30)) return not_implemented(op, ": ", n, " nodes; at most 2^30 are supported");
  if (spec.n_targets < 1 || spec.n_targets > (int64_t(1) << 30))
    return invalid_model(op, ": the number of targets must be in [1, 2^30], got ", spec.n_targets);
  if (!spec.base_values.empty() && int64_t(spec.base_values.size()) != spec.n_targets)
    return invalid_model(op, ": ", spec.base_values.size(), " base values for ", spec.n_targets, " targets");
  for (const EnsembleSpec::Node& node : spec.nodes) {
    if (node.mode == Mode::kLeaf) continue;
    if (node.feature < 0 || node.feature > int64_t(kFeatureMask))
      return invalid_model(op, ": feature id ", node.feature, " out of range [0, 2^27)");
    if (node.true_child < 0 || node.true_child >= n || node.false_child < 0 || node.false_child >= n)
      return invalid_model(op, ": a node's child ", node.true_child < 0 || node.true_child >= n ? node.true_child : node.false_child,
                           " is not a node of the ensemble (", n, " nodes)");
    if (node.mode == Mode::kMember && (node.member_set < 0 || node.member_set >= int64_t(spec.member_sets.size())))
      return invalid_model(op, ": a BRANCH_MEMBER node has no set of members");
  }
  // Leaf contributions grouped by node (counting sort keeps their order).
  std::vector<uint32_t> by_node_begin(size_t(n) + 1, 0);
  for (const EnsembleSpec::Contribution& c : spec.contributions) {
    if (c.node < 0 || c.node >= n) return invalid_model(op, ": a weight points to node ", c.node, ", which does not exist");
    if (spec.nodes[size_t(c.node)].mode != Mode::kLeaf)
      return invalid_model(op, ": a weight points to node ", c.node, ", which is not a leaf");
    if (c.target < 0 || c.target >= spec.n_targets)
      return invalid_model(op, ": a weight's target/class id ", c.target, " is outside [0, ", spec.n_targets, ")");
    ++by_node_begin[size_t(c.node) + 1];
  }
  if (spec.contributions.size() >= (size_t(1) << 31)) return not_implemented(op, ": too many leaf weights");
  for (int64_t i = 0; i < n; ++i) by_node_begin[size_t(i) + 1] += by_node_begin[size_t(i)];
  std::vector<uint32_t> by_node(spec.contributions.size());
  {
    std::vector<uint32_t> fill(by_node_begin.begin(), by_node_begin.end() - 1);
    for (size_t k = 0; k < spec.contributions.size(); ++k) by_node[fill[size_t(spec.contributions[k].node)]++] = uint32_t(k);
  }

  CompiledEnsemble<C> out;
  out.n_targets = spec.n_targets;
  out.aggregate = spec.aggregate;
  out.base_values = spec.base_values;
  for (const std::vector<double>& set : spec.member_sets) {
    std::vector<C> members;
    for (double v : set)
      if (!std::isnan(v)) members.push_back(C(v));
    std::sort(members.begin(), members.end());
    out.member_sets.push_back(std::move(members));
  }
  // Per tree: depth by an iterative depth-first walk (a node seen again while on the walk's
  // path is a cycle), then the breadth-first layout. Stamps make the per-node state per tree.
  std::vector<int64_t> stamp(size_t(n), -1), depth(size_t(n), 0), placed(size_t(n), -1);
  std::vector<uint8_t> state(size_t(n), 0);  // 1 on the path, 2 done (valid where stamp == tree)
  std::vector<std::pair<int64_t, int>> stack;
  std::vector<int64_t> order;
  int uniform = -2;  // -2 none seen yet
  out.contribution_begin.push_back(0);
  for (size_t tree = 0; tree < spec.roots.size(); ++tree) {
    const int64_t root = spec.roots[tree];
    if (root < 0 || root >= n) return invalid_model(op, ": tree ", tree, "'s root ", root, " is not a node of the ensemble");
    const int64_t t = int64_t(tree);
    stack.assign(1, {root, 0});
    stamp[size_t(root)] = t;
    state[size_t(root)] = 1;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      const EnsembleSpec::Node& nd = spec.nodes[size_t(node)];
      if (nd.mode == Mode::kLeaf || next == 2) {
        int64_t d = 0;
        if (nd.mode != Mode::kLeaf) d = 1 + std::max(depth[size_t(nd.true_child)], depth[size_t(nd.false_child)]);
        depth[size_t(node)] = d;
        state[size_t(node)] = 2;
        stack.pop_back();
        continue;
      }
      const int64_t child = next++ == 0 ? nd.true_child : nd.false_child;
      if (stamp[size_t(child)] == t) {
        if (state[size_t(child)] == 1) return invalid_model(op, ": tree ", tree, " has a cycle through node ", child);
        continue;
      }
      stamp[size_t(child)] = t;
      state[size_t(child)] = 1;
      stack.push_back({child, 0});
    }
    if (depth[size_t(root)] > (int64_t(1) << 30)) return not_implemented(op, ": tree ", tree, " is too deep");
    // Breadth-first order; `placed` maps a node to its packed index for this tree.
    order.assign(1, root);
    const int64_t base = int64_t(out.nodes.size());
    placed[size_t(root)] = base;
    stamp[size_t(root)] = -2 - t;  // a second stamp value marks "placed in this tree"
    for (size_t q = 0; q < order.size(); ++q) {
      const EnsembleSpec::Node& nd = spec.nodes[size_t(order[q])];
      if (nd.mode == Mode::kLeaf) continue;
      for (int64_t child : {nd.true_child, nd.false_child}) {
        if (stamp[size_t(child)] == -2 - t) continue;
        stamp[size_t(child)] = -2 - t;
        placed[size_t(child)] = base + int64_t(order.size());
        order.push_back(child);
      }
    }
    if (base + int64_t(order.size()) >= (int64_t(1) << 31))
      return not_implemented(op, ": the compiled ensemble would exceed 2^31 nodes");
    for (size_t q = 0; q < order.size(); ++q) {
      const int64_t src = order[q];
      const EnsembleSpec::Node& nd = spec.nodes[size_t(src)];
      PackedNode<C> p{};
      const int32_t self = int32_t(base + int64_t(q));
      if (nd.mode == Mode::kLeaf) {
        p.threshold = C(0);
        p.feature_flags = 0;
        p.child[0] = p.child[1] = self;
        for (uint32_t k = by_node_begin[size_t(src)]; k < by_node_begin[size_t(src) + 1]; ++k) {
          const EnsembleSpec::Contribution& c = spec.contributions[by_node[k]];
          out.contribution_target.push_back(int32_t(c.target));
          out.contribution_weight.push_back(c.weight);
        }
      } else {
        p.feature_flags = uint32_t(nd.feature) | comparison_bits(nd.mode) | (nd.missing_tracks_true ? kMissingBit : 0);
        out.any_missing_tracks_true |= nd.missing_tracks_true;
        p.threshold = nd.mode == Mode::kMember ? set_index_as_threshold<C>(uint32_t(nd.member_set)) : C(nd.threshold);
        p.child[1] = int32_t(placed[size_t(nd.true_child)]);
        p.child[0] = int32_t(placed[size_t(nd.false_child)]);
        out.feature_count_needed = std::max<int64_t>(out.feature_count_needed, nd.feature + 1);
        const int m = nd.mode <= Mode::kGt ? int(nd.mode) : -1;
        uniform = uniform == -2 ? m : (uniform == m ? uniform : -1);
      }
      out.nodes.push_back(p);
      out.contribution_begin.push_back(uint32_t(out.contribution_target.size()));
    }
    out.roots.push_back(int32_t(base));
    out.depths.push_back(int32_t(depth[size_t(root)]));
    out.total_depth += out.depths.back();
  }
  out.uniform_mode = uniform == -2 ? int(Mode::kLeq) : uniform;
  out.tree_blocks.assign(1, 0);
  size_t bytes = 0;
  for (size_t t = 0; t < out.roots.size(); ++t) {
    const size_t end = t + 1 < out.roots.size() ? size_t(out.roots[t + 1]) : out.nodes.size();
    const size_t tree_bytes = (end - size_t(out.roots[t])) * sizeof(PackedNode<C>);
    if (bytes > 0 && bytes + tree_bytes > kTreeBlockBytes) {
      out.tree_blocks.push_back(t);
      bytes = 0;
    }
    bytes += tree_bytes;
  }
  out.tree_blocks.push_back(out.roots.size());
  out.single_contribution_leaves = true;
  out.leaf_target.assign(out.nodes.size(), 0);
  out.leaf_weight.assign(out.nodes.size(), 0.0);
  for (size_t i = 0; i < out.nodes.size(); ++i) {
    if (out.nodes[i].child[1] != int32_t(i)) continue;  // interior (only a leaf loops to itself)
    const uint32_t begin = out.contribution_begin[i];
    if (out.contribution_begin[i + 1] - begin != 1) {
      out.single_contribution_leaves = false;
      break;
    }
    out.leaf_target[i] = out.contribution_target[begin];
    out.leaf_weight[i] = out.contribution_weight[begin];
  }
  if (!out.single_contribution_leaves) {
    out.leaf_target.clear();
    out.leaf_weight.clear();
  }
  return out;
}

template Result<CompiledEnsemble<float>> compile_ensemble<float>(const EnsembleSpec&, const std::string&);
template Result<CompiledEnsemble<double>> compile_ensemble<double>(const EnsembleSpec&, const std::string&);

double logistic(double v) {
  const double e = 1.0 / (1.0 + std::exp(-std::fabs(v)));
  return v < 0 ? 1.0 - e : e;
}

// sqrt(2) * erfinv(2p - 1), with erfinv by Winitzki's closed-form approximation (a = 0.147),
// the one ONNX's reference and ONNX Runtime use for PROBIT.
double probit(double p) {
  const double x = 2.0 * p - 1.0;
  const double sign = x < 0 ? -1.0 : 1.0;
  const double one_minus_x2 = (1.0 - x) * (1.0 + x);
  if (one_minus_x2 == 0) return 0;
  const double ln = std::log(one_minus_x2);
  const double a = 0.147;
  const double u = 2.0 / (M_PI * a) + 0.5 * ln;
  return 1.41421356 * sign * std::sqrt(-u + std::sqrt(u * u - ln / a));
}

void post_transform_row(PostTransform transform, double* row, int64_t n) {
  switch (transform) {
    case PostTransform::kNone: return;
    case PostTransform::kLogistic:
      for (int64_t i = 0; i < n; ++i) row[i] = logistic(row[i]);
      return;
    case PostTransform::kProbit:
      for (int64_t i = 0; i < n; ++i) row[i] = probit(row[i]);
      return;
    case PostTransform::kSoftmax: {
      double top = -std::numeric_limits<double>::infinity(), sum = 0;
      for (int64_t i = 0; i < n; ++i) top = std::max(top, row[i]);
      for (int64_t i = 0; i < n; ++i) sum += (row[i] = std::exp(row[i] - top));
      for (int64_t i = 0; i < n; ++i) row[i] /= sum;
      return;
    }
    case PostTransform::kSoftmaxZero: {
      // As SOFTMAX, except that scores within 1e-7 of zero count as absent (weight ~0).
      double top = -std::numeric_limits<double>::infinity(), sum = 0;
      for (int64_t i = 0; i < n; ++i) top = std::max(top, row[i]);
      const double scale = std::exp(-top);
      for (int64_t i = 0; i < n; ++i) {
        row[i] = (row[i] > 1e-7 || row[i] < -1e-7) ? std::exp(row[i] - top) : row[i] * scale;
        sum += row[i];
      }
      for (int64_t i = 0; i < n; ++i) row[i] = sum == 0 ? 0.5 : row[i] / sum;
      return;
    }
  }
}

Status batch_shape(const Tensor& x, const std::string& op, int64_t* rows, int64_t* features) {
  if (x.rank() == 2) {
    *rows = x.dim(0);
    *features = x.dim(1);
  } else if (x.rank() == 1) {
    *rows = 1;
    *features = x.dim(0);
  } else {
    return invalid_argument(op, " takes X of shape [N, F] (or [F]), got ", x.describe());
  }
  return Status::Ok();
}

}  // namespace onyx::trees
