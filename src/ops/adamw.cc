// AdamW (ai.onyx.training, opset 1): inputs learning_rate, step, X, G, M, V; outputs X_new,
// M_new, V_new, each typed like the X, M or V it updates.
#include "ops/optimizer_shape.h"

namespace onyx::ops {
namespace {
Status infer_adamw(InferenceContext& ctx) { return infer_optimizer(ctx, 4, {0, 2, 3}); }
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onyx.training", "AdamW", 1, 1000, infer_adamw);
}  // namespace onyx::ops
