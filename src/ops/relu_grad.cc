// ReluGrad (ai.onyx.training): typed and shaped as Y (input 1).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_relu_grad(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input_elem_type(1), ctx.input_shape(1));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.training", "ReluGrad", 1, 1000, infer_relu_grad);

}  // namespace onyx::ops
