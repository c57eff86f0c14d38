// com.microsoft QAttention: output [B, S, hidden] of bias's element type, hidden a third of the
// weight's width; the present output's shape is not derived.
#include "ops/attention_shape.h"

namespace onyx::ops {
namespace {

Status infer_q_attention(InferenceContext& ctx) {
  return set_attention_outputs(ctx, third_of_width(ctx, 1), ctx.input_elem_type(2));
}

}  // namespace
ONYX_REGISTER_OP_RULE("com.microsoft", "QAttention", 1, 1000, infer_q_attention);
}  // namespace onyx::ops
