// ai.onnx.ml Normalizer: Y float, X's shape.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_normalizer(InferenceContext& ctx) {
  ctx.set_output(0, DataType::kFloat, ctx.input_shape(0));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.ml", "Normalizer", 1, 1000, infer_normalizer);
}  // namespace onyx::ops
