// Loop: inputs M, cond, v_initial (N); body (iter, cond, v...) -> (cond, v..., s...) with K
// scan outputs. Outputs: the N final loop-carried values, typed as the body declares them
// (narrowed to what they share with v_initial), then the K scan outputs: the body's declared
// tensor type with a leading dim of unknown length (the iteration count).
#include "ops/control_flow_shape.h"
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_loop(InferenceContext& ctx) {
  const ir::Attribute* body_attr = ctx.node().attribute("body");
  if (!body_attr || !body_attr->g) return Status::Ok();
  const auto& body_out = body_attr->g->outputs;
  const int carried = ctx.num_inputs() - 2;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    const size_t b = size_t(i) + 1;  // body output 0 is the condition
    if (b >= body_out.size()) break;
    if (i < carried) ctx.set_output_type(i, carried_type(body_out[b].type, ctx.input_type(2 + i)));
    else ctx.set_output_type(i, stacked_type(body_out[b].type, 0, Dim{}));
  }
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "Loop", 1, 1000, infer_loop);
}  // namespace onyx::ops
