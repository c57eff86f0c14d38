// com.microsoft BiasAdd: Y has X's type and the broadcast shape of X, bias and skip
// (X and skip (N, S, C), bias (C)).
#include "ops/op_rule.h"

namespace onyx::ops {

ONYX_REGISTER_OP_RULE("com.microsoft", "BiasAdd", 1, 1000, infer_broadcast);

}  // namespace onyx::ops
