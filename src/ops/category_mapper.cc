// ai.onnx.ml CategoryMapper: X's shape; int64 for string X, string for int64 X.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_category_mapper(InferenceContext& ctx) {
  const DataType x = ctx.input_elem_type(0);
  const DataType y = x == DataType::kString ? DataType::kInt64 : x == DataType::kInt64 ? DataType::kString : DataType::kUndefined;
  ctx.set_output(0, y, ctx.input_shape(0));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.ml", "CategoryMapper", 1, 1000, infer_category_mapper);
}  // namespace onyx::ops
