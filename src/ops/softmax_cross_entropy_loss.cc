// SoftmaxCrossEntropyLoss: output 0 as infer_loss_output (loss_shape.h); the optional
// log_prob output has the type and shape of the scores.
#include "ops/loss_shape.h"

namespace onyx::ops {
namespace {
Status infer_softmax_cross_entropy_loss(InferenceContext& ctx) {
  if (const ir::TypeInfo* t = ctx.input_type(0)) ctx.set_output_type(1, *t);
  return infer_loss_output(ctx);
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "SoftmaxCrossEntropyLoss", 1, 1000, infer_softmax_cross_entropy_loss);
}  // namespace onyx::ops
