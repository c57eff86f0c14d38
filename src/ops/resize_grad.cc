// ResizeGrad (ai.onyx.training): the gradient of Resize's X, inputs (X, roi, scales, sizes, dY):
// X's shape, dY's element type (src/kernels/cpu/resize_grad.cc).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_resize_grad(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input_elem_type(4), ctx.input_shape(0));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.training", "ResizeGrad", 1, 1000, infer_resize_grad);

}  // namespace onyx::ops
