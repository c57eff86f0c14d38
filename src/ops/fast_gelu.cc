// com.microsoft FastGelu: Y has X's type and the broadcast shape of X and the 1-D bias.
#include "ops/op_rule.h"

namespace onyx::ops {

ONYX_REGISTER_OP_RULE("com.microsoft", "FastGelu", 1, 1000, infer_broadcast);

}  // namespace onyx::ops
