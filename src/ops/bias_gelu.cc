// com.microsoft BiasGelu: C has A's type and the broadcast shape of A and the 1-D B.
#include "ops/op_rule.h"

namespace onyx::ops {

ONYX_REGISTER_OP_RULE("com.microsoft", "BiasGelu", 1, 1000, infer_broadcast);

}  // namespace onyx::ops
