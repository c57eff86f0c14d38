// Identity: passes its input's static type through unchanged (tensor, sequence or optional).
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "Identity", 1, 1000, infer_same_as_input0);
}  // namespace onyx::ops
