// ai.onnx.ml Scaler: Y float, X's shape.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_scaler(InferenceContext& ctx) {
  ctx.set_output(0, DataType::kFloat, ctx.input_shape(0));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.ml", "Scaler", 1, 1000, infer_scaler);
}  // namespace onyx::ops
