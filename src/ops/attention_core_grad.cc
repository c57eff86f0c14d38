// AttentionCoreGrad (ai.onyx.training): from dY, AttentionCore's inputs and its probabilities,
// the gradients of those inputs, each of its input's type and shape: three outputs for
// (dY, query, key, value, probs), one for (dY, packed query | key | value, probs).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_attention_core_grad(InferenceContext& ctx) {
  const int outputs = ctx.has_input(4) ? 3 : 1;
  for (int i = 0; i < outputs; ++i) ctx.set_output(i, ctx.input_elem_type(i + 1), ctx.input_shape(i + 1));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.training", "AttentionCoreGrad", 1, 1000, infer_attention_core_grad);

}  // namespace onyx::ops
