// GroupNormalization: same type and shape as X (N, C, D1..Dn).
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "GroupNormalization", 18, 1000, infer_same_as_input0);
}  // namespace onyx::ops
