// GatherElements: data's element type, indices' shape.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_gather_elements(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input_elem_type(0), ctx.input_shape(1));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "GatherElements", 1, 1000, infer_gather_elements);

}  // namespace onyx::ops
