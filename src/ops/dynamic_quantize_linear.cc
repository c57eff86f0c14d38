// DynamicQuantizeLinear: y (uint8, x's shape), y_scale (float32 scalar), y_zero_point (uint8
// scalar).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_dynamic_quantize_linear(InferenceContext& ctx) {
  ctx.set_output(0, DataType::kUInt8, ctx.input_shape(0));
  ctx.set_output(1, DataType::kFloat, known_shape({}));
  ctx.set_output(2, DataType::kUInt8, known_shape({}));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "DynamicQuantizeLinear", 11, 1000, infer_dynamic_quantize_linear);
}  // namespace onyx::ops
