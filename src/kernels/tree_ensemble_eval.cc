// Evaluating a compiled tree ensemble over a batch (tree_ensemble_common.h): row blocks over
// threads, tree blocks that fit in cache, lockstep walks of several rows (or several trees).
#include <algorithm>
#include <vector>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/parallel.h"
#include "core/data_type.h"
#include "kernels/tree_ensemble_common.h"

namespace onyx::trees {
namespace {

constexpr uint32_t kFeatureMask = (1u << 27) - 1;
constexpr uint32_t kMemberBit = 1u << 27;
constexpr int kLanes = 8;              // walks advanced together (rows through one tree: tails)
constexpr int kTreeLanes = 16;         // trees of one row (16: measured faster than 8 and 32 at batch 1)
constexpr int kRowLanes = 8;           // rows through one tree
// A few rows split the trees between threads when a row's walk takes at least this many steps
// (the trees' depths summed): LightGBM's 300 and 500 trees gained (12.8 -> 10.4, 14.0 -> 12.6 µs
// on 2 threads), GradientBoosting's 500 x depth 8 was level, and RandomForest's 100 x depth 12
// (1,200 steps) lost to the threads' wake-up.
constexpr int64_t kSplitSteps = 2500;
constexpr int64_t kRowBlock = 64;      // rows per task

// Exact membership (binary_search's equivalence would hold NaN equal to everything).
template <typename C>
bool in_set(const std::vector<C>& set, C x) {
  auto it = std::lower_bound(set.begin(), set.end(), x);
  return it != set.end() && *it == x;
}

// One step down: the child a row takes at node i. kMode is a Mode of the whole ensemble
// (0..3) or -1 for the general test by flags (any mode, set membership).
template <typename C, int kMode, bool kMissing>
inline int32_t step(const CompiledEnsemble<C>& e, const PackedNode<C>* nodes, int32_t i, const C* row) {
  const PackedNode<C>& nd = nodes[i];
  const uint32_t ff = nd.feature_flags;
  const C x = row[ff & kFeatureMask];
  const C th = nd.threshold;
  uint32_t go;
  if constexpr (kMode == int(Mode::kLeq)) go = x <= th;
  else if constexpr (kMode == int(Mode::kLt)) go = x < th;
  else if constexpr (kMode == int(Mode::kGte)) go = x >= th;
  else if constexpr (kMode == int(Mode::kGt)) go = x > th;
  else {
    go = ((ff >> 31) & uint32_t(x < th)) | ((ff >> 30) & uint32_t(x == th)) | ((ff >> 29) & uint32_t(x > th));
    if (ff & kMemberBit) [[unlikely]] {
      const uint32_t set = [&] { uint32_t s; std::memcpy(&s, &th, sizeof(s)); return s; }();
      go = in_set(e.member_sets[set], x);
    }
  }
  if constexpr (kMissing) go |= (ff >> 28) & uint32_t(x != x);  // NaN: the missing-value branch
  return nd.child[go & 1u];
}

// L walks of `depth` steps from start[l] with rows[l]; leaves loop to themselves.
template <typename C, int kMode, bool kMissing, int L>
inline void descend(const CompiledEnsemble<C>& e, const int32_t* start, const C* const* rows, int32_t depth,
                    int32_t* leaf) {
  const PackedNode<C>* nodes = e.nodes.data();
  int32_t cur[L];
  for (int l = 0; l < L; ++l) cur[l] = start[l];
  for (int32_t d = 0; d < depth; ++d)
    for (int l = 0; l < L; ++l) cur[l] = step<C, kMode, kMissing>(e, nodes, cur[l], rows[l]);
  for (int l = 0; l < L; ++l) leaf[l] = cur[l];
}

inline void combine(Aggregate aggregate, double& s, double w) {
  switch (aggregate) {
    case Aggregate::kSum:
    case Aggregate::kAverage: s += w; break;
    case Aggregate::kMin: s = (s != s || w < s) ? w : s; break;
    case Aggregate::kMax: s = (s != s || w > s) ? w : s; break;
  }
}

// Adds leaf `leaf`'s contributions to one row's scores. Min and max start from NaN, "none yet".
template <typename C, bool kSingle>
inline void add_leaf(const CompiledEnsemble<C>& e, Aggregate aggregate, int32_t leaf, double* scores) {
  if constexpr (kSingle) {
    combine(aggregate, scores[e.leaf_target[size_t(leaf)]], e.leaf_weight[size_t(leaf)]);
  } else {
    const uint32_t end = e.contribution_begin[size_t(leaf) + 1];
    for (uint32_t k = e.contribution_begin[size_t(leaf)]; k < end; ++k)
      combine(aggregate, scores[e.contribution_target[k]], e.contribution_weight[k]);
  }
}

// Trees [t0, t1) over rows [r0, r1) of x (row stride f).
template <typename C, int kMode, bool kMissing, bool kSingle>
void run_block(const CompiledEnsemble<C>& e, const C* x, int64_t f, int64_t r0, int64_t r1, size_t t0, size_t t1,
               double* scores) {
  const int64_t nt = e.n_targets;
  const Aggregate agg = e.aggregate;
  constexpr int kMost = kRowLanes > kTreeLanes ? kRowLanes : kTreeLanes;
  const C* rows[kMost];
  int32_t start[kMost], leaf[kMost];
  if (r1 - r0 >= kRowLanes) {
    // Lanes over rows: each tree in turn, kLanes rows at a time.
    for (size_t t = t0; t < t1; ++t) {
      const int32_t root = e.roots[t], depth = e.depths[t];
      int64_t r = r0;
      for (; r + kRowLanes <= r1; r += kRowLanes) {
        for (int l = 0; l < kRowLanes; ++l) { rows[l] = x + (r + l) * f; start[l] = root; }
        descend<C, kMode, kMissing, kRowLanes>(e, start, rows, depth, leaf);
        for (int l = 0; l < kRowLanes; ++l) add_leaf<C, kSingle>(e, agg, leaf[l], scores + (r + l) * nt);
      }
      for (; r + kLanes <= r1; r += kLanes) {
        for (int l = 0; l < kLanes; ++l) { rows[l] = x + (r + l) * f; start[l] = root; }
        descend<C, kMode, kMissing, kLanes>(e, start, rows, depth, leaf);
        for (int l = 0; l < kLanes; ++l) add_leaf<C, kSingle>(e, agg, leaf[l], scores + (r + l) * nt);
      }
      for (; r < r1; ++r) {
        rows[0] = x + r * f;
        descend<C, kMode, kMissing, 1>(e, &root, rows, depth, leaf);
        add_leaf<C, kSingle>(e, agg, leaf[0], scores + r * nt);
      }
    }
    return;
  }
  // Few rows: lanes over trees, one row at a time (contributions still added in tree order).
  for (int64_t r = r0; r < r1; ++r) {
    const C* row = x + r * f;
    for (int l = 0; l < kTreeLanes; ++l) rows[l] = row;
    size_t t = t0;
    for (; t + kTreeLanes <= t1; t += kTreeLanes) {
      int32_t depth = 0;
      for (int l = 0; l < kTreeLanes; ++l) { start[l] = e.roots[t + l]; depth = std::max(depth, e.depths[t + l]); }
      descend<C, kMode, kMissing, kTreeLanes>(e, start, rows, depth, leaf);
      for (int l = 0; l < kTreeLanes; ++l) add_leaf<C, kSingle>(e, agg, leaf[l], scores + r * nt);
    }
    for (; t < t1; ++t) {
      descend<C, kMode, kMissing, 1>(e, &e.roots[t], rows, e.depths[t], leaf);
      add_leaf<C, kSingle>(e, agg, leaf[0], scores + r * nt);
    }
  }
}

// The leaf each tree [t0, t1) gives `row`: leaves[t - t0], kTreeLanes trees in lockstep.
template <typename C, int kMode, bool kMissing>
void leaves_of_trees(const CompiledEnsemble<C>& e, const C* row, size_t t0, size_t t1, int32_t* leaves) {
  const C* rows[kTreeLanes];
  int32_t start[kTreeLanes];
  for (int l = 0; l < kTreeLanes; ++l) rows[l] = row;
  size_t t = t0;
  for (; t + kTreeLanes <= t1; t += kTreeLanes) {
    int32_t depth = 0;
    for (int l = 0; l < kTreeLanes; ++l) { start[l] = e.roots[t + l]; depth = std::max(depth, e.depths[t + l]); }
    descend<C, kMode, kMissing, kTreeLanes>(e, start, rows, depth, leaves + (t - t0));
  }
  for (; t < t1; ++t) descend<C, kMode, kMissing, 1>(e, &e.roots[t], rows, e.depths[t], leaves + (t - t0));
}

// A few rows through a large ensemble on several threads: the trees split between the
// threads, which record each tree's leaf; the leaves are then added in tree order (the sums
// exactly as on one thread).
template <typename C, int kMode, bool kMissing>
void run_few_rows_split(const CompiledEnsemble<C>& e, const C* x, int64_t rows, int64_t f, double* scores) {
  const size_t trees = e.roots.size();
  std::vector<int32_t> leaves(size_t(rows) * trees);
  const int64_t chunk = int64_t((trees + size_t(intra_op_threads()) - 1) / size_t(intra_op_threads()));
  parallel_for(int64_t(trees), chunk, [&](int64_t t0, int64_t t1) {
    for (int64_t r = 0; r < rows; ++r)
      leaves_of_trees<C, kMode, kMissing>(e, x + r * f, size_t(t0), size_t(t1), leaves.data() + size_t(r) * trees + size_t(t0));
  });
  for (int64_t r = 0; r < rows; ++r)
    for (size_t t = 0; t < trees; ++t) {
      if (e.single_contribution_leaves) add_leaf<C, true>(e, e.aggregate, leaves[size_t(r) * trees + t], scores + r * e.n_targets);
      else add_leaf<C, false>(e, e.aggregate, leaves[size_t(r) * trees + t], scores + r * e.n_targets);
    }
}

template <typename C, int kMode, bool kMissing>
void run_all(const CompiledEnsemble<C>& e, const C* x, int64_t rows, int64_t f, double* scores) {
  if (rows < kRowLanes && intra_op_threads() > 1 && e.total_depth >= kSplitSteps) {
    run_few_rows_split<C, kMode, kMissing>(e, x, rows, f, scores);
    return;
  }
  // Tree blocks (compile_ensemble's, by node bytes) so that a block stays in cache while a row
  // block goes through it; a few rows take all trees at once.
  const std::vector<size_t> all_trees{0, e.roots.size()};
  const std::vector<size_t>& bounds = rows < kRowLanes ? all_trees : e.tree_blocks;
  const int64_t blocks = (rows + kRowBlock - 1) / kRowBlock;
  parallel_for(blocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t r0 = b * kRowBlock, r1 = std::min(rows, r0 + kRowBlock);
      for (size_t k = 0; k + 1 < bounds.size(); ++k) {
        if (e.single_contribution_leaves) run_block<C, kMode, kMissing, true>(e, x, f, r0, r1, bounds[k], bounds[k + 1], scores);
        else run_block<C, kMode, kMissing, false>(e, x, f, r0, r1, bounds[k], bounds[k + 1], scores);
      }
    }
  });
}

template <typename C, bool kMissing>
void run_by_mode(const CompiledEnsemble<C>& e, const C* x, int64_t rows, int64_t f, double* scores) {
  switch (e.uniform_mode) {
    case int(Mode::kLeq): run_all<C, int(Mode::kLeq), kMissing>(e, x, rows, f, scores); break;
    case int(Mode::kLt): run_all<C, int(Mode::kLt), kMissing>(e, x, rows, f, scores); break;
    case int(Mode::kGte): run_all<C, int(Mode::kGte), kMissing>(e, x, rows, f, scores); break;
    case int(Mode::kGt): run_all<C, int(Mode::kGt), kMissing>(e, x, rows, f, scores); break;
    default: run_all<C, -1, kMissing>(e, x, rows, f, scores); break;
  }
}

template <typename C, typename T>
void convert_rows(const T* src, C* dst, int64_t count) {
  parallel_for(count, 1 << 16, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) dst[i] = C(static_cast<float>(src[i]));
  });
}

}  // namespace

template <typename C>
Status evaluate_ensemble(const CompiledEnsemble<C>& e, const Tensor& x, int64_t rows, int64_t features,
                         double* scores, const std::function<Result<Tensor>(DataType, const Shape&)>& scratch,
                         const std::string& op) {
  if (features < e.feature_count_needed)
    return invalid_argument(op, ": X has ", features, " features per row, the trees read feature ",
                            e.feature_count_needed - 1);
  const int64_t nt = e.n_targets;
  const bool min_max = e.aggregate == Aggregate::kMin || e.aggregate == Aggregate::kMax;
  std::fill(scores, scores + rows * nt, min_max ? std::numeric_limits<double>::quiet_NaN() : 0.0);
  if (rows == 0) return Status::Ok();
  const C* xp = nullptr;
  Tensor converted;
  if (x.dtype() == data_type_of<C>) {
    xp = x.data<C>();
  } else {
    ONYX_ASSIGN_OR_RETURN(converted, scratch(data_type_of<C>, Shape{rows, features}));
    C* dst = converted.data<C>();
    const int64_t count = rows * features;
    switch (x.dtype()) {
      case DataType::kFloat: convert_rows(x.data<float>(), dst, count); break;
      case DataType::kFloat16: convert_rows(x.data<Float16>(), dst, count); break;
      case DataType::kInt32: convert_rows(x.data<int32_t>(), dst, count); break;
      case DataType::kInt64: convert_rows(x.data<int64_t>(), dst, count); break;
      default: return not_implemented(op, " does not take X of type ", data_type_name(x.dtype()));
    }
    xp = dst;
  }
  if (e.any_missing_tracks_true) run_by_mode<C, true>(e, xp, rows, features, scores);
  else run_by_mode<C, false>(e, xp, rows, features, scores);
  // Finish: average, untouched min/max targets at zero, base values.
  const double trees = double(std::max<size_t>(1, e.roots.size()));
  for (int64_t i = 0; i < rows * nt; ++i) {
    double& s = scores[i];
    if (e.aggregate == Aggregate::kAverage) s /= trees;
    if (min_max && s != s) s = 0;
    if (!e.base_values.empty()) s += e.base_values[size_t(i % nt)];
  }
  return Status::Ok();
}

template Status evaluate_ensemble<float>(const CompiledEnsemble<float>&, const Tensor&, int64_t, int64_t, double*,
                                         const std::function<Result<Tensor>(DataType, const Shape&)>&,
                                         const std::string&);
template Status evaluate_ensemble<double>(const CompiledEnsemble<double>&, const Tensor&, int64_t, int64_t, double*,
                                          const std::function<Result<Tensor>(DataType, const Shape&)>&,
                                          const std::string&);

}  // namespace onyx::trees
