// CumProd: input 0's type and shape.
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "CumProd", 26, 1000, infer_same_as_input0);
}  // namespace onyx::ops
