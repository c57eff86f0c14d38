// PRelu: same type and shape as X (slope broadcasts onto X in one direction).
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "PRelu", 1, 1000, infer_same_as_input0);
}  // namespace onyx::ops
