// StringConcat: string, the broadcast of X and Y.
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "StringConcat", 20, 1000, infer_broadcast);
}  // namespace onyx::ops
