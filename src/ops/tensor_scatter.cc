// TensorScatter (ai.onnx, since 24): present_cache has past_cache's type and shape.
#include "ops/op_rule.h"

namespace onyx::ops {

ONYX_REGISTER_OP_RULE("", "TensorScatter", 24, 1000, infer_same_as_input0);

}  // namespace onyx::ops
