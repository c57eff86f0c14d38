// com.microsoft QAttention: output [B, S, hidden] of bias's element type, hidden a third of the
// weight's width; the present output's shape is not derived.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_q_attention(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(0), w = ctx.input_shape(1);
  SymbolicShape out = unknown_dims(3);
  if (x.has_rank && x.dims.size() == 3) {
    out.dims[0] = x.dims[0];
    out.dims[1] = x.dims[1];
  }
  if (w.has_rank && w.dims.size() == 2 && w.dims[1].value && *w.dims[1].value % 3 == 0)
    out.dims[2] = known_dim(*w.dims[1].value / 3);
  ctx.set_output(0, ctx.input_elem_type(2), std::move(out));
  for (int k = 1; k < ctx.num_outputs(); ++k) ctx.set_output(k, ctx.input_elem_type(2), {});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_OP_RULE("com.microsoft", "QAttention", 1, 1000, infer_q_attention);
}  // namespace onyx::ops
