// ai.onnx.ml LabelEncoder: X's shape; the values' type (v1: int64 for string X, string for
// int64 X).
#include "ops/ml_shape.h"

namespace onyx::ops {
namespace {
Status infer_label_encoder(InferenceContext& ctx) {
  DataType type = DataType::kUndefined;
  if (ctx.opset() < 2) {
    const DataType x = ctx.input_elem_type(0);
    if (x == DataType::kString) type = DataType::kInt64;
    else if (x == DataType::kInt64) type = DataType::kString;
  } else if (ctx.has_attr("values_floats")) {
    type = DataType::kFloat;
  } else if (ctx.has_attr("values_int64s")) {
    type = DataType::kInt64;
  } else if (ctx.has_attr("values_strings")) {
    type = DataType::kString;
  } else if (const ir::Attribute* t = ctx.node().attribute("values_tensor")) {
    type = t->t.dtype();
  }
  ctx.set_output(0, type, ctx.input_shape(0));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.ml", "LabelEncoder", 1, 1000, infer_label_encoder);
}  // namespace onyx::ops
