// com.microsoft FastGelu: Y has X's type and shape (the bias is 1-D along the last dim).
#include "ops/op_rule.h"

namespace onyx::ops {

ONYX_REGISTER_OP_RULE("com.microsoft", "FastGelu", 1, 1000, infer_same_as_input0);

}  // namespace onyx::ops
