// ai.onnx.ml Imputer: Y has X's type and shape.
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("ai.onnx.ml", "Imputer", 1, 1000, infer_same_as_input0);
}  // namespace onyx::ops
