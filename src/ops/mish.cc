// Mish: same type and shape as its input (elementwise).
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "Mish", 18, 1000, infer_same_as_input0);
}  // namespace onyx::ops
