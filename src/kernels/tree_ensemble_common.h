// Tree ensembles of ai.onnx.ml (TreeEnsembleClassifier/Regressor 1 and 3, TreeEnsemble 5):
// one neutral description that every op's attributes are read into (EnsembleSpec), compiled
// once at prepare into a cache-friendly form (CompiledEnsemble) and evaluated over a batch.
//
// The compiled form: every tree's reachable nodes laid out breadth-first and contiguously in
// one array of packed nodes {threshold, feature|flags, true child, false child} (16 bytes for
// float thresholds, 24 for double). Leaves are nodes too, looping to themselves, so a tree is
// walked a fixed number of steps (its depth) with no branch per level: several walks (rows
// through one tree, or one row through several trees) advance in lockstep, which hides the
// latency of each dependent load. Rows go in blocks, trees in blocks whose nodes fit in the
// L2 cache, and row blocks are spread over threads (parallel_for). Per row, trees contribute
// in their order, so results do not depend on blocking or thread count.
//
// Comparisons are made in the input's precision, as the spec says: double for double input,
// float otherwise (float, float16, int32, int64 inputs converted to float; thresholds given
// as double rounded to float). A NaN feature takes the true branch where
// missing_value_tracks_true is set and the false branch otherwise, whatever the mode (the spec's
// wording; ONNX Runtime 1.30 takes the true branch of BRANCH_NEQ on NaN). Sums are kept in
// double and rounded to the output type at the end.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx::trees {

enum class Mode : uint8_t { kLeq = 0, kLt = 1, kGte = 2, kGt = 3, kEq = 4, kNeq = 5, kMember = 6, kLeaf = 7 };
enum class Aggregate { kAverage, kSum, kMin, kMax };
enum class PostTransform { kNone, kSoftmax, kLogistic, kSoftmaxZero, kProbit };

// "BRANCH_LEQ" ... "LEAF"; an error naming the op for anything else.
Result<Mode> parse_mode(const std::string& text, const std::string& op);
Result<Aggregate> parse_aggregate(const std::string& text, const std::string& op);
Result<PostTransform> parse_post_transform(const std::string& text, const std::string& op);

// The ensemble as the attributes describe it, node references already resolved to indices.
struct EnsembleSpec {
  struct Node {
    Mode mode = Mode::kLeaf;
    bool missing_tracks_true = false;
    int64_t feature = 0;
    double threshold = 0;       // the attribute's value (a float one widened exactly)
    int64_t true_child = -1;    // index into nodes (interior nodes only)
    int64_t false_child = -1;
    int64_t member_set = -1;    // index into member_sets (kMember only)
  };
  struct Contribution {
    int64_t node;    // a leaf's index into nodes
    int64_t target;  // in [0, n_targets)
    double weight;
  };
  std::vector<Node> nodes;
  std::vector<int64_t> roots;  // one node index per tree, in evaluation order
  std::vector<std::vector<double>> member_sets;
  std::vector<Contribution> contributions;
  int64_t n_targets = 1;
  Aggregate aggregate = Aggregate::kSum;
  std::vector<double> base_values;  // empty, or one per target
};

template <typename C>
struct PackedNode {
  C threshold;              // for kMember nodes: the set's index (bit pattern, see tree_ensemble_common.cc)
  uint32_t feature_flags;   // feature in the low 27 bits; comparison flags above
  int32_t child[2];         // [0] false, [1] true: absolute indices into the node array, picked
                            // by the comparison's 0/1 with no branch to mispredict
};

inline constexpr size_t kTreeBlockBytes = 192 * 1024;  // about a tenth of this machine's 2 MB L2

// An ensemble compiled for comparisons in C (float or double).
template <typename C>
struct CompiledEnsemble {
  std::vector<PackedNode<C>> nodes;
  std::vector<int32_t> roots;   // per tree
  std::vector<int32_t> depths;  // per tree: interior levels on its longest path
  int64_t total_depth = 0;      // the sum of depths: the steps of one row's walk through every tree
  // Leaf contributions by packed node index: [contribution_begin[i], contribution_begin[i+1]).
  std::vector<uint32_t> contribution_begin;
  std::vector<int32_t> contribution_target;
  std::vector<double> contribution_weight;
  // When every leaf has exactly one contribution (GradientBoosting, XGBoost, LightGBM, every
  // TreeEnsemble 5): by packed node index, the leaf's target and weight, read directly.
  bool single_contribution_leaves = false;
  std::vector<int32_t> leaf_target;
  std::vector<double> leaf_weight;
  std::vector<std::vector<C>> member_sets;  // sorted
  int64_t n_targets = 1;
  int64_t feature_count_needed = 0;  // 1 + the largest feature an interior node reads
  Aggregate aggregate = Aggregate::kSum;
  std::vector<double> base_values;
  bool any_missing_tracks_true = false;
  // Tree blocks: [tree_blocks[k], tree_blocks[k+1]) hold at most kTreeBlockBytes of nodes
  // (a single larger tree makes a block of its own).
  std::vector<size_t> tree_blocks;
  int uniform_mode = -1;  // Mode when every interior node compares the same way (no sets); -1 otherwise
};

// Checks the spec (indices in range, no cycles, leaves with weights only) and compiles it.
// Errors are INVALID_MODEL naming `op`.
template <typename C>
Result<CompiledEnsemble<C>> compile_ensemble(const EnsembleSpec& spec, const std::string& op);

// Aggregated scores (base values added, no post transform) for every row of x, a
// [rows, features] tensor of float, double, float16, int32 or int64: scores[r * n_targets + t].
// `scratch` supplies working memory (the converted input when x is not of type C).
template <typename C>
Status evaluate_ensemble(const CompiledEnsemble<C>& ensemble, const Tensor& x, int64_t rows, int64_t features,
                         double* scores, const std::function<Result<Tensor>(DataType, const Shape&)>& scratch,
                         const std::string& op);

// The post transform over one row of `n` scores, in place.
void post_transform_row(PostTransform transform, double* row, int64_t n);
double logistic(double v);
double probit(double v);

// Reads X's [rows, features] (rank 2, or rank 1 as one row); an error naming op otherwise.
Status batch_shape(const Tensor& x, const std::string& op, int64_t* rows, int64_t* features);

}  // namespace onyx::trees
