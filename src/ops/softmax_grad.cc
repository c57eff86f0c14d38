// SoftmaxGrad (ai.onyx.training): dX has dY's element type and shape.
#include "ops/op_rule.h"

namespace onyx::ops {

ONYX_REGISTER_OP_RULE("ai.onyx.training", "SoftmaxGrad", 1, 1000, infer_same_as_input0);

}  // namespace onyx::ops
