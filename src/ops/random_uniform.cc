// RandomUniform: see infer_random (random_shape.h).
#include "ops/random_shape.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "RandomUniform", 1, 1000, infer_random);
}  // namespace onyx::ops
