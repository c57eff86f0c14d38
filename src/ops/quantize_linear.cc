// QuantizeLinear: y has x's shape and y_zero_point's element type (uint8 when it is omitted;
// opset 21+'s output_dtype attribute when set and there is no zero point).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_quantize_linear(InferenceContext& ctx) {
  DataType elem = DataType::kUInt8;
  if (ctx.has_input(2)) {
    elem = ctx.input_elem_type(2);
  } else if (const int64_t dt = ctx.attr_int("output_dtype", 0); dt != 0) {
    elem = is_valid_data_type(int(dt)) ? DataType(dt) : DataType::kUndefined;
  }
  ctx.set_output(0, elem, ctx.input_shape(0));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "QuantizeLinear", 10, 1000, infer_quantize_linear);
}  // namespace onyx::ops
