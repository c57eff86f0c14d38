// Shared by the signal ops' rules (DFT, STFT, the windows, MelWeightMatrix): constant
// integer scalars and the output_datatype attribute.
#pragma once
#include <optional>

#include "ops/op_rule.h"

namespace onyx::ops {

// The value of input i when it is a constant integer tensor of one element; else nullopt.
std::optional<int64_t> constant_int_scalar(const InferenceContext& ctx, int i);

// The output_datatype attribute (default float32); kUndefined when it is not a data type.
DataType output_datatype(const InferenceContext& ctx);

// HannWindow / HammingWindow / BlackmanWindow: a 1-D tensor of `size` (input 0) values in
// output_datatype.
Status infer_window(InferenceContext& ctx);

}  // namespace onyx::ops
