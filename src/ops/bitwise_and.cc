// BitwiseAnd: the type of A, the broadcast of A and B.
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "BitwiseAnd", 18, 1000, infer_broadcast);
}  // namespace onyx::ops
