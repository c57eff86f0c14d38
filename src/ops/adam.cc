// Adam (ai.onnx.preview.training): inputs R, T, X..., G..., V..., H...; outputs X_new...,
// V_new..., H_new..., each typed like the X, V or H it updates.
#include "ops/optimizer_shape.h"

namespace onyx::ops {
namespace {
Status infer_adam(InferenceContext& ctx) { return infer_optimizer(ctx, 4, {0, 2, 3}); }
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.preview.training", "Adam", 1, 1000, infer_adam);
}  // namespace onyx::ops
