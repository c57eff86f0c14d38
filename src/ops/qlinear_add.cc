// com.microsoft QLinearAdd: C has A's element type and the broadcast shape of A and B (inputs 0 and 3).
#include "ops/qlinear_shape.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("com.microsoft", "QLinearAdd", 1, 1000, infer_qlinear_binary);
}  // namespace onyx::ops
