#include "mixed_precision.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include "feeds.h"
#include "ops/infer_graph.h"
#include "session/session.h"

namespace onyx::cli {
namespace {

constexpr double kFloat16Max = 65504.0;

using Outputs = std::vector<std::vector<Value>>;  // per feed set, the model's outputs

Result<Outputs> run_all(const ir::Model& model, const std::vector<FeedSet>& sets, int threads) {
  SessionOptions so;
  so.graph_optimization_level = 1;  // the graph as converted, not fused again
  so.intra_op_threads = threads;
  ONYX_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::from_loaded_model(model, so));
  Outputs out;
  for (const FeedSet& s : sets) {
    ONYX_ASSIGN_OR_RETURN(FeedSet feeds, feeds_as_declared(*session, s));
    ONYX_ASSIGN_OR_RETURN(std::vector<Value> y, session->run(feeds));
    out.push_back(std::move(y));
  }
  return out;
}

// A floating tensor's elements as doubles (empty for other values).
std::vector<double> doubles(const Value& v) {
  std::vector<double> d;
  if (!v.is_tensor() || !is_float_type(v.tensor().dtype())) return d;
  const Tensor& t = v.tensor();
  d.resize(size_t(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) d[size_t(i)] = t.get_double(i);
  return d;
}

// True when every floating output of `got` is within `tolerance` (absolute) of `ref`, with no
// inf or NaN where `ref` is finite; *max_abs gets the largest difference.
bool within(const Outputs& ref, const Outputs& got, double tolerance, double* max_abs) {
  *max_abs = 0;
  for (size_t s = 0; s < ref.size(); ++s)
    for (size_t k = 0; k < ref[s].size(); ++k) {
      const std::vector<double> a = doubles(ref[s][k]), b = doubles(got[s][k]);
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!std::isfinite(a[i])) continue;
        if (!std::isfinite(b[i])) {
          *max_abs = std::numeric_limits<double>::infinity();
          return false;
        }
        *max_abs = std::max(*max_abs, std::abs(a[i] - b[i]));
      }
    }
  return *max_abs <= tolerance;
}

}  // namespace

void name_nodes(ir::Model& model) {
  std::set<std::string> used;
  for (const auto& n : model.graph.nodes) used.insert(n.name);
  int k = 0;
  for (auto& n : model.graph.nodes) {
    if (!n.name.empty()) continue;
    std::string name;
    do name = n.op_type + "_" + std::to_string(k++);
    while (used.count(name));
    n.name = name;
    used.insert(name);
  }
}

Result<MixedPrecisionResult> find_mixed_precision(const ir::Model& model, const optimizer::Float16Options& base,
                                                  const std::vector<FeedSet>& sets, double tolerance, int threads) {
  if (sets.empty()) return invalid_argument("mixed precision needs at least one feed set");
  MixedPrecisionResult r;
  ONYX_ASSIGN_OR_RETURN(Outputs ref, run_all(model, sets, threads));

  // Nodes whose float32 outputs leave float16's range stay float32.
  std::vector<std::string> outputs;
  std::map<std::string, std::string> producer;
  for (const auto& n : model.graph.nodes)
    for (const auto& o : n.outputs)
      if (!o.empty()) producer[o] = n.name;
  const ops::GraphTypes types = ops::infer_graph_types(model.graph, model.opsets);
  for (const auto& [value, node] : producer)
    if (auto it = types.all.find(value); it != types.all.end() && it->second.elem_type == DataType::kFloat)
      outputs.push_back(value);
  CalibrationOptions co;
  co.threads = threads;
  ONYX_ASSIGN_OR_RETURN(auto ranges, calibrate(model, outputs, sets, co, nullptr));
  for (const auto& [value, range] : ranges)
    if (std::max(std::abs(double(range.min)), std::abs(double(range.max))) > kFloat16Max) {
      r.overflow.insert(producer.at(value));
    }

  // Bisection over the rest, in graph order.
  std::vector<std::string> candidates;
  for (const auto& n : model.graph.nodes)
    if (!base.op_block_list.count(n.op_type) && !r.overflow.count(n.name)) candidates.push_back(n.name);
  std::set<std::string> keep(candidates.begin(), candidates.end());
  keep.insert(r.overflow.begin(), r.overflow.end());
  double last_max = 0;
  auto fits = [&](const std::set<std::string>& kept) -> bool {
    ir::Model m = model;
    optimizer::Float16Options o = base;
    o.node_block_list = kept;
    ++r.tries;
    if (!optimizer::convert_to_float16(m, o).ok()) return false;
    auto got = run_all(m, sets, threads);
    double max_abs = 0;
    if (!got.ok() || !within(ref, *got, tolerance, &max_abs)) return false;
    last_max = max_abs;
    return true;
  };
  std::function<void(size_t, size_t)> attempt = [&](size_t begin, size_t end) {
    if (begin >= end) return;
    std::set<std::string> trial = keep;
    for (size_t i = begin; i < end; ++i) trial.erase(candidates[i]);
    if (fits(trial)) {
      keep = std::move(trial);
      r.max_abs = last_max;
      return;
    }
    if (end - begin == 1) return;  // this node stays float32
    const size_t mid = begin + (end - begin) / 2;
    attempt(begin, mid);
    attempt(mid, end);
  };
  attempt(0, candidates.size());
  if (keep.size() == candidates.size() + r.overflow.size()) {
    // Nothing converted: the float32 model itself, difference 0.
    r.max_abs = 0;
  }
  r.kept = keep;
  return r;
}

}  // namespace onyx::cli
