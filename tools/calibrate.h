// Calibration for static quantisation (`onyx quantize --static`): the float model runs on
// each calibration feed set with the activations to calibrate added as outputs, and each
// activation gets a range by one of three methods:
//   minmax      the smallest and largest value seen;
//   percentile  the values at the (100 - p) and p percentiles (p = 99.999 by default) of a
//               2048-bin histogram over the min-max range;
//   entropy     the clipping threshold T that minimises the KL divergence between the
//               histogram of |x| (2048 bins) and its quantised form (256 levels over [0, T]
//               for activations that are never negative, else 128 per sign), TensorRT's method.
// Histogram methods run the feed sets twice (min-max first, then the histograms).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "ir/graph.h"
#include "optimizer/quantize_static.h"
#include "session/session.h"

namespace onyx::cli {

enum class CalibrationMethod { kMinMax, kPercentile, kEntropy };

struct CalibrationOptions {
  CalibrationMethod method = CalibrationMethod::kMinMax;
  double percentile = 99.999;
  int threads = 0;  // intra-op threads of the calibration session (0: one per core)
};

using FeedSet = std::vector<std::pair<std::string, Value>>;

// Called after each run: (runs done, runs in all).
using Progress = std::function<void(int, int)>;

// Feed sets for `session`: each subfolder of `dir` (in name order) read as --inputs-dir reads a
// folder, or `dir` itself when it has no subfolder; with `dir` empty, `random_sets` sets of
// random inputs (ids and masks in range, seeds 1, 2, ...).
Result<std::vector<FeedSet>> feed_sets(const Session& session, const std::string& dir, int random_sets);

// Ranges of `tensors` (float32 values of `model`'s main graph) over `sets`.
Result<std::map<std::string, optimizer::TensorRange>> calibrate(const ir::Model& model,
                                                                const std::vector<std::string>& tensors,
                                                                const std::vector<FeedSet>& sets,
                                                                const CalibrationOptions& options,
                                                                const Progress& progress);

// The threshold T of the entropy method for a histogram of |x| over [0, top] (see above).
double entropy_threshold(const std::vector<double>& hist, double top, bool non_negative);

}  // namespace onyx::cli
