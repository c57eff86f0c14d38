// IsNaN: bool, the shape of its input.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_is_nan(InferenceContext& ctx) {
  ctx.set_output(0, DataType::kBool, ctx.input_shape(0));
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "IsNaN", 1, 1000, infer_is_nan);
}  // namespace onyx::ops
