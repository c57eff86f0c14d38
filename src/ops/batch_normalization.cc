// BatchNormalization: Y has X's type and shape. The training outputs (running_mean and
// running_var; before opset 14 also saved_mean and saved_var) have the type and shape of the
// mean input (outputs 1 and 3) or the var input (outputs 2 and 4).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_batch_normalization(InferenceContext& ctx) {
  ONYX_RETURN_IF_ERROR(infer_same_as_input0(ctx));
  for (int out = 1; out <= 4 && out < ctx.num_outputs(); ++out) {
    const int like = out % 2 == 1 ? 3 : 4;
    ctx.set_output(out, ctx.input_elem_type(like), ctx.input_shape(like));
  }
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "BatchNormalization", 1, 1000, infer_batch_normalization);
}  // namespace onyx::ops
