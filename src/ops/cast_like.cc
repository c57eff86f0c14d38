// CastLike: the element type of target_type (input 1), the shape of the input.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_cast_like(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input_elem_type(1), ctx.input_shape(0));
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "CastLike", 1, 1000, infer_cast_like);
}  // namespace onyx::ops
