// Dropout: output 0 has the input's type and shape; the mask (output 1) has the input's shape
// and is bool from opset 10, of the input's element type before.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_dropout(InferenceContext& ctx) {
  ONYX_RETURN_IF_ERROR(infer_same_as_input0(ctx));
  const DataType mask = ctx.opset() >= 10 ? DataType::kBool : ctx.input_elem_type(0);
  ctx.set_output(1, mask, ctx.input_shape(0));
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "Dropout", 1, 1000, infer_dropout);
}  // namespace onyx::ops
