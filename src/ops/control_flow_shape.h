// Shared by the rules of Loop and Scan: the types of their outputs from the body's declared
// outputs.
#pragma once
#include "ir/graph.h"

namespace onyx::ops {

// A loop-carried value: the body's declared output type, narrowed to what it shares with the
// initial value when that is known (after zero iterations the output is the initial value).
ir::TypeInfo carried_type(const ir::TypeInfo& body_output, const ir::TypeInfo* initial);

// A scan output: the body's declared tensor output with a new dim `len` inserted at `axis`
// (in [0, rank]); unknown for non-tensors, no rank when the body's rank is unknown.
ir::TypeInfo stacked_type(const ir::TypeInfo& body_output, int64_t axis, Dim len);

}  // namespace onyx::ops
