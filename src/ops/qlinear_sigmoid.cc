// com.microsoft QLinearSigmoid: Y has X's element type and shape.
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("com.microsoft", "QLinearSigmoid", 1, 1000, infer_same_as_input0);
}  // namespace onyx::ops
