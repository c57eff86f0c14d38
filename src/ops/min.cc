// Min: variadic; the type of the first input, the broadcast of all inputs (before opset 8
// the inputs share one shape, which the broadcast gives too).
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "Min", 1, 1000, infer_broadcast);
}  // namespace onyx::ops
