// GradAccumulate (ai.onyx.training): the type and shape of buffer (input 0).
#include "ops/op_rule.h"

namespace onyx::ops {

ONYX_REGISTER_OP_RULE("ai.onyx.training", "GradAccumulate", 1, 1000, infer_same_as_input0);

}  // namespace onyx::ops
