#include "calibrate.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <set>

#include "feeds.h"
#include "session/session.h"

namespace onyx::cli {
namespace fs = std::filesystem;
namespace {

constexpr int kBins = 2048;

struct Stats {
  double min = std::numeric_limits<double>::infinity(), max = -std::numeric_limits<double>::infinity();
  std::vector<double> hist;  // kBins over [min, max] (percentile) or [0, max |x|] (entropy)
};

// Runs every set, calling fn(k, tensor) for each calibrated tensor's value.
template <typename Fn>
Status run_sets(const Session& session, const std::vector<std::string>& tensors, const std::vector<FeedSet>& sets,
                int pass, int passes, const Progress& progress, Fn&& fn) {
  for (size_t s = 0; s < sets.size(); ++s) {
    ONYX_ASSIGN_OR_RETURN(std::vector<Value> outs, session.run(sets[s], tensors));
    for (size_t k = 0; k < tensors.size(); ++k) {
      if (!outs[k].is_tensor() || outs[k].tensor().dtype() != DataType::kFloat)
        return invalid_argument("calibration: '", tensors[k], "' is not a float32 tensor at run time");
      fn(k, outs[k].tensor());
    }
    if (progress) progress(int(pass * sets.size() + s + 1), int(passes * sets.size()));
  }
  return Status::Ok();
}

double percentile_value(const Stats& st, double fraction) {
  double total = 0;
  for (double h : st.hist) total += h;
  const double want = fraction * total;
  double seen = 0;
  const double width = (st.max - st.min) / kBins;
  for (int b = 0; b < kBins; ++b) {
    seen += st.hist[size_t(b)];
    if (seen >= want) return st.min + (b + 1) * width;
  }
  return st.max;
}

}  // namespace

Result<std::vector<FeedSet>> feed_sets(const Session& session, const std::string& dir, int random_sets) {
  std::vector<FeedSet> sets;
  if (!dir.empty()) {
    if (!fs::is_directory(dir)) return not_found("no folder of feed sets '", dir, "'");
    std::vector<std::string> dirs;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_directory()) dirs.push_back(e.path().string());
    std::sort(dirs.begin(), dirs.end());
    if (dirs.empty()) dirs.push_back(dir);
    for (const auto& d : dirs) {
      FeedArgs f;
      f.inputs_dir = d;
      auto feeds = gather_feeds(session, f);
      if (!feeds.ok()) return invalid_argument("feed set '", d, "': ", feeds.status().message());
      sets.push_back(std::move(*feeds));
    }
    return sets;
  }
  for (int k = 0; k < random_sets; ++k) {
    FeedArgs f;
    f.random_inputs = true;
    f.seed = uint32_t(k + 1);
    ONYX_ASSIGN_OR_RETURN(FeedSet feeds, gather_feeds(session, f));
    sets.push_back(std::move(feeds));
  }
  return sets;
}

double entropy_threshold(const std::vector<double>& hist, double top, bool non_negative) {
  const int bins = int(hist.size());
  const int levels = non_negative ? 256 : 128;
  if (bins <= levels) return top;
  double best_kl = std::numeric_limits<double>::infinity();
  int best = bins;
  std::vector<double> p, q;
  for (int i = levels; i <= bins; ++i) {
    // P: the first i bins, with everything above folded into the last.
    p.assign(hist.begin(), hist.begin() + i);
    for (int b = i; b < bins; ++b) p[size_t(i - 1)] += hist[size_t(b)];
    // Q: the first i bins merged into `levels` groups, each group's mass spread over its
    // non-empty bins.
    q.assign(size_t(i), 0.0);
    for (int j = 0; j < levels; ++j) {
      const int begin = int(int64_t(j) * i / levels), end = int(int64_t(j + 1) * i / levels);
      double mass = 0;
      int nonzero = 0;
      for (int b = begin; b < end; ++b) {
        mass += hist[size_t(b)];
        nonzero += hist[size_t(b)] != 0;
      }
      for (int b = begin; b < end; ++b)
        if (hist[size_t(b)] != 0) q[size_t(b)] = mass / nonzero;
    }
    double p_sum = 0, q_sum = 0;
    for (int b = 0; b < i; ++b) {
      p_sum += p[size_t(b)];
      q_sum += q[size_t(b)];
    }
    if (p_sum <= 0 || q_sum <= 0) continue;
    double kl = 0;
    for (int b = 0; b < i; ++b) {
      if (p[size_t(b)] <= 0) continue;
      const double pp = p[size_t(b)] / p_sum;
      // A bin Q leaves empty (the folded outliers) counts at a small floor, as P has mass there.
      const double qq = std::max(q[size_t(b)] / q_sum, 1e-12);
      kl += pp * std::log(pp / qq);
    }
    if (kl < best_kl) {
      best_kl = kl;
      best = i;
    }
  }
  return top * double(best) / double(bins);
}

Result<std::map<std::string, optimizer::TensorRange>> calibrate(const ir::Model& model,
                                                                const std::vector<std::string>& tensors,
                                                                const std::vector<FeedSet>& sets,
                                                                const CalibrationOptions& options,
                                                                const Progress& progress) {
  if (sets.empty()) return invalid_argument("calibration needs at least one feed set");
  std::map<std::string, optimizer::TensorRange> ranges;
  if (tensors.empty()) return ranges;
  // The model with every tensor to calibrate as an output.
  ir::Model copy = model;
  std::set<std::string> outputs;
  for (const auto& vi : copy.graph.outputs) outputs.insert(vi.name);
  for (const auto& t : tensors) {
    if (outputs.count(t)) continue;
    ir::ValueInfo vi;
    vi.name = t;
    vi.type.kind = ir::TypeInfo::Kind::kTensor;
    vi.type.elem_type = DataType::kFloat;
    copy.graph.outputs.push_back(vi);
  }
  SessionOptions so;
  so.graph_optimization_level = 1;
  so.intra_op_threads = options.threads;
  ONYX_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::from_loaded_model(copy, so));

  const bool histogram = options.method != CalibrationMethod::kMinMax;
  const int passes = histogram ? 2 : 1;
  std::vector<Stats> stats(tensors.size());
  ONYX_RETURN_IF_ERROR(run_sets(*session, tensors, sets, 0, passes, progress, [&](size_t k, const Tensor& t) {
    Stats& st = stats[k];
    const float* v = t.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (!std::isfinite(v[i])) continue;
      st.min = std::min(st.min, double(v[i]));
      st.max = std::max(st.max, double(v[i]));
    }
  }));
  if (histogram) {
    const bool entropy = options.method == CalibrationMethod::kEntropy;
    for (Stats& st : stats) st.hist.assign(kBins, 0.0);
    ONYX_RETURN_IF_ERROR(run_sets(*session, tensors, sets, 1, passes, progress, [&](size_t k, const Tensor& t) {
      Stats& st = stats[k];
      if (!(st.max > st.min)) return;
      const double lo = entropy ? 0.0 : st.min;
      const double hi = entropy ? std::max(std::abs(st.min), std::abs(st.max)) : st.max;
      const double per = kBins / (hi - lo);
      const float* v = t.data<float>();
      for (int64_t i = 0; i < t.numel(); ++i) {
        if (!std::isfinite(v[i])) continue;
        const double x = entropy ? std::abs(double(v[i])) : double(v[i]);
        st.hist[size_t(std::clamp((x - lo) * per, 0.0, double(kBins - 1)))] += 1;
      }
    }));
  }
  for (size_t k = 0; k < tensors.size(); ++k) {
    const Stats& st = stats[k];
    optimizer::TensorRange r;
    if (st.min > st.max) {  // no finite value seen
      ranges[tensors[k]] = r;
      continue;
    }
    r.min = float(st.min);
    r.max = float(st.max);
    if (histogram && st.max > st.min) {
      if (options.method == CalibrationMethod::kPercentile) {
        const double p = options.percentile / 100.0;
        r.max = float(percentile_value(st, p));
        if (st.min < 0) r.min = float(percentile_value(st, 1.0 - p) - (st.max - st.min) / kBins);
      } else {
        const bool non_negative = st.min >= 0;
        const double top = std::max(std::abs(st.min), std::abs(st.max));
        const double threshold = entropy_threshold(st.hist, top, non_negative);
        r.max = float(std::min(st.max, threshold));
        r.min = float(std::max(st.min, -threshold));
      }
    }
    ranges[tensors[k]] = r;
  }
  return ranges;
}

}  // namespace onyx::cli
