// Momentum (ai.onnx.preview.training): inputs R, T, X..., G..., V...; outputs X_new...,
// V_new..., each typed like the X or V it updates.
#include "ops/optimizer_shape.h"

namespace onyx::ops {
namespace {
Status infer_momentum(InferenceContext& ctx) { return infer_optimizer(ctx, 3, {0, 2}); }
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.preview.training", "Momentum", 1, 1000, infer_momentum);
}  // namespace onyx::ops
