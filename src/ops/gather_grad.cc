// GatherGrad (ai.onyx.training): the type and shape of data (input 2), with or without the
// accumulation inputs (buffer, reset).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_like_data(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input_elem_type(2), ctx.input_shape(2));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.training", "GatherGrad", 1, 1000, infer_like_data);

}  // namespace onyx::ops
