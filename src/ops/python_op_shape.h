// What the static rules of ai.onyx.torch PythonOp and PythonOpGrad share: outputs whose element
// types and ranks the node records in its output_types (ONNX element type numbers) and
// output_ranks (-1: unknown) attributes; their dims are unknown statically.
#pragma once
#include "ops/op_rule.h"

namespace onyx::ops {

// Sets outputs first, first + 1, ... from the attributes' entries 0, 1, ...
inline void set_recorded_outputs(InferenceContext& ctx, int first) {
  const std::vector<int64_t> types = ctx.attr_ints("output_types");
  const std::vector<int64_t> ranks = ctx.attr_ints("output_ranks");
  for (int i = first; i < ctx.num_outputs(); ++i) {
    const size_t k = size_t(i - first);
    const DataType elem = k < types.size() && is_valid_data_type(int(types[k])) ? DataType(types[k])
                                                                                 : DataType::kUndefined;
    const bool ranked = k < ranks.size() && ranks[k] >= 0 && ranks[k] <= 64;
    ctx.set_output(i, elem, ranked ? unknown_dims(ranks[k]) : SymbolicShape{});
  }
}

}  // namespace onyx::ops
