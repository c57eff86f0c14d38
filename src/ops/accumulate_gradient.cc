// AccumulateGradient (ai.onyx.training): typed and shaped as G (input 1).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_accumulate_gradient(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input_elem_type(1), ctx.input_shape(1));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.training", "AccumulateGradient", 1, 1000, infer_accumulate_gradient);

}  // namespace onyx::ops
