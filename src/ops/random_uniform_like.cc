// RandomUniformLike: see infer_random_like (random_shape.h).
#include "ops/random_shape.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "RandomUniformLike", 1, 1000, infer_random_like);
}  // namespace onyx::ops
