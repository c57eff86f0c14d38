// DequantizeLinear: y has x's shape and x_scale's element type (float32 before opset 19,
// where x_scale can only be float32), or output_dtype's when set (opset 23+).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_dequantize_linear(InferenceContext& ctx) {
  DataType elem = ctx.input_elem_type(1);
  if (const int64_t dt = ctx.attr_int("output_dtype", 0); dt != 0)
    elem = is_valid_data_type(int(dt)) ? DataType(dt) : DataType::kUndefined;
  if (elem == DataType::kUndefined && ctx.opset() < 19) elem = DataType::kFloat;
  ctx.set_output(0, elem, ctx.input_shape(0));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "DequantizeLinear", 10, 1000, infer_dequantize_linear);
}  // namespace onyx::ops
