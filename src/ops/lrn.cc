// LRN: same type and shape as X (normalises across channels).
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "LRN", 1, 1000, infer_same_as_input0);
}  // namespace onyx::ops
