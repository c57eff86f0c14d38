// ReduceL2: see infer_reduce (reduce_shape.h); axes is an input from opset 18.
#include "ops/reduce_shape.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "ReduceL2", 1, 1000, [](InferenceContext& ctx) { return infer_reduce(ctx, 18); });
}  // namespace onyx::ops
