// Mul: the type of A, the broadcast of A and B (before opset 7 with 'broadcast': A's shape).
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "Mul", 1, 1000, infer_broadcast);
}  // namespace onyx::ops
