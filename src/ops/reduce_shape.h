// Static rules shared by the Reduce* ops and ArgMax / ArgMin.
#pragma once
#include "ops/op_rule.h"

namespace onyx::ops {

// Reduce*: output 0 has the input's element type. The axes come from the 'axes' attribute,
// or, from opset `axes_input_since` on, from the optional constant input 1 (when that input
// is absent the attribute, normally missing, still applies). Empty axes reduce every dim,
// unless noop_with_empty_axes=1, which passes the input through. keepdims (default 1) keeps
// reduced dims as 1. A non-constant axes input (unless its static shape [0] makes it empty)
// leaves the dims unknown: the rank is still known with keepdims=1, or from the axes input's
// length otherwise.
Status infer_reduce(InferenceContext& ctx, int axes_input_since);

// ArgMax / ArgMin: int64; the input's shape with dim 'axis' (default 0) set to 1
// (keepdims=1, the default) or dropped.
Status infer_arg_reduce(InferenceContext& ctx);

}  // namespace onyx::ops
