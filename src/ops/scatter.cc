// Scatter: data's type and shape (updates written into a copy of data).
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "Scatter", 1, 1000, infer_same_as_input0);
}  // namespace onyx::ops
