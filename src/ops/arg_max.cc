// ArgMax: int64 indices; see infer_arg_reduce (reduce_shape.h).
#include "ops/reduce_shape.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "ArgMax", 1, 1000, infer_arg_reduce);
}  // namespace onyx::ops
