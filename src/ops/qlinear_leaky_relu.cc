// com.microsoft QLinearLeakyRelu: Y has X's element type and shape.
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("com.microsoft", "QLinearLeakyRelu", 1, 1000, infer_same_as_input0);
}  // namespace onyx::ops
