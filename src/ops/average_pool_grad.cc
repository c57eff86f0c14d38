// AveragePoolGrad (ai.onyx.training): the gradient of AveragePool's X, inputs (dY, X): X's type
// and shape (src/kernels/cpu/average_pool_grad.cc).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_average_pool_grad(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input_elem_type(1), ctx.input_shape(1));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.training", "AveragePoolGrad", 1, 1000, infer_average_pool_grad);

}  // namespace onyx::ops
