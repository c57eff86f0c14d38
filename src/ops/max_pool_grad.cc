// MaxPoolGrad (ai.onyx.training): typed and shaped as X (input 1).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_max_pool_grad(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input_elem_type(1), ctx.input_shape(1));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.training", "MaxPoolGrad", 1, 1000, infer_max_pool_grad);

}  // namespace onyx::ops
