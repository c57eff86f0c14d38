// Automatic mixed precision for `onyx optimize --float16 --auto-mixed-precision --tolerance T`:
// the fewest nodes to keep in float32 so that the float16 model's outputs stay within T of
// the float32 model's on the given feed sets, with no inf or NaN where float32 has none.
//
// Nodes whose float32 outputs leave float16's range (|x| > 65504) on the feed sets are kept
// first. The rest is settled by bisection over the nodes in graph order: a span is tried in
// float16 with everything settled so far; if the outputs stay within T it stays float16,
// else it is halved and each half tried, down to single nodes, which stay float32. A
// candidate onyx cannot run (no float16 kernel) counts as out of tolerance, so such nodes end
// up float32 too. Each try converts, plans and runs the model once per feed set.
#pragma once
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "calibrate.h"
#include "core/status.h"
#include "ir/graph.h"
#include "optimizer/float16_conversion.h"

namespace onyx::cli {

struct MixedPrecisionResult {
  std::set<std::string> kept;      // node names kept float32
  std::set<std::string> overflow;  // of those, the ones kept for float16 overflow
  int tries = 0;                   // candidate models run
  double max_abs = 0;              // of the final model, over outputs and feed sets
};

// `model` must have unique node names (name_nodes makes them). `base` carries keep_io_types and
// the op block list.
Result<MixedPrecisionResult> find_mixed_precision(const ir::Model& model, const optimizer::Float16Options& base,
                                                  const std::vector<FeedSet>& sets, double tolerance, int threads);

// Gives every unnamed node of the main graph a unique name.
void name_nodes(ir::Model& model);

}  // namespace onyx::cli
