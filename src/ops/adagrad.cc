// Adagrad (ai.onnx.preview.training): inputs R, T, X..., G..., H...; outputs X_new...,
// H_new..., each typed like the X or H it updates.
#include "ops/optimizer_shape.h"

namespace onyx::ops {
namespace {
Status infer_adagrad(InferenceContext& ctx) { return infer_optimizer(ctx, 3, {0, 2}); }
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.preview.training", "Adagrad", 1, 1000, infer_adagrad);
}  // namespace onyx::ops
