// Softmax: same type and shape as its input (any opset's axis semantics keep the shape).
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "Softmax", 1, 1000, infer_same_as_input0);
}  // namespace onyx::ops
