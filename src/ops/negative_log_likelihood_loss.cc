// NegativeLogLikelihoodLoss: see infer_loss_output (loss_shape.h).
#include "ops/loss_shape.h"

namespace onyx::ops {
ONYX_REGISTER_OP_RULE("", "NegativeLogLikelihoodLoss", 1, 1000, infer_loss_output);
}  // namespace onyx::ops
