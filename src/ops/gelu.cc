// Gelu (ai.onnx opset 20; com.microsoft since 1): Y has X's type and shape.
#include "ops/op_rule.h"

namespace onyx::ops {

ONYX_REGISTER_OP_RULE("", "Gelu", 20, 1000, infer_same_as_input0);
ONYX_REGISTER_OP_RULE("com.microsoft", "Gelu", 1, 1000, infer_same_as_input0);

}  // namespace onyx::ops
