// Pow: the type of the base X (the exponent may differ), the broadcast of X and Y (before
// opset 7 with 'broadcast': X's shape).
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "Pow", 1, 1000, infer_broadcast);
}  // namespace onyx::ops
