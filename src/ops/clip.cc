// Clip: same type and shape as its input (min / max, attributes or inputs, only bound values).
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "Clip", 1, 1000, infer_same_as_input0);
}  // namespace onyx::ops
