// RotaryEmbedding (com.microsoft since 1, ai.onnx since 23): output has the input's type and shape.
#include "ops/op_rule.h"

namespace onyx::ops {

ONYX_REGISTER_OP_RULE("com.microsoft", "RotaryEmbedding", 1, 1000, infer_same_as_input0);
ONYX_REGISTER_OP_RULE("", "RotaryEmbedding", 23, 1000, infer_same_as_input0);

}  // namespace onyx::ops
