// SequenceErase: the input sequence less one element; same type.
#include "ops/op_rule.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "SequenceErase", 11, 1000, infer_same_as_input0);
}  // namespace onyx::ops
