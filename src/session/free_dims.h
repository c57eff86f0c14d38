// Free-dimension overrides: fix symbolic (free) dims of a graph's inputs to concrete sizes
// before static inference and planning, so the static types carry the fixed sizes.
//
// Rules (the contract SessionOptions documents for its users):
// - A dim is free when it has no dim_value. Only dims of the graph's inputs select overrides.
// - By name: an override "batch"=4 fixes every free input dim whose dim_param is "batch".
// - By denotation: an override "DATA_BATCH"=4 fixes every free input dim whose denotation is
//   DATA_BATCH (case-insensitive, as in ONNX Runtime). Denotations are the ONNX list:
//   DATA_BATCH, DATA_CHANNEL, DATA_TIME, DATA_FEATURE, FILTER_IN_CHANNEL, FILTER_OUT_CHANNEL,
//   FILTER_SPATIAL (other strings are accepted and matched the same way).
// - A dim with both a dim_param and a denotation: the override by name wins; when both exist
//   and disagree, a warning says which was used.
// - A dim_param fixed on one input dim (by either kind) is fixed wherever that dim_param
//   appears in the graph's inputs, outputs and value_infos (it names one size). Two denotation
//   overrides that fix one dim_param to different sizes are an INVALID_ARGUMENT error.
// - A dim that already has a dim_value keeps it; an override that disagrees with it is a
//   warning. Negative override values are an INVALID_ARGUMENT error.
// - An override naming a dim_param or denotation no graph input has is a warning, no error.
// - Fixed dims lose their dim_param (as ONNX Runtime does) and keep their denotation.
// - Subgraphs (If/Loop/Scan bodies) are not rewritten.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace onyx {

struct FreeDimensionResult {
  // One self-describing line per override that matched nothing, or that disagreed with a dim.
  std::vector<std::string> warnings;
  // Per graph input: dim index -> what fixed it ("dim_param 'batch'", "denotation DATA_BATCH").
  std::map<std::string, std::map<size_t, std::string>> fixed;
};

Result<FreeDimensionResult> apply_free_dimension_overrides(ir::Graph& graph,
                                                           const std::map<std::string, int64_t>& by_name,
                                                           const std::map<std::string, int64_t>& by_denotation);

}  // namespace onyx
