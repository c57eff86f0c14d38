// Swish (ai.onnx, since 24): output has the input's type and shape.
#include "ops/op_rule.h"

namespace onyx::ops {

ONYX_REGISTER_OP_RULE("", "Swish", 24, 1000, infer_same_as_input0);

}  // namespace onyx::ops
