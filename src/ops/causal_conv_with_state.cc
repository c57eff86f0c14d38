// CausalConvWithState (ai.onnx, since 27): output has input's type and shape; present_state
// is (B, C, k - 1) of input's type, k = weight.shape[2] (unknown dims where not known).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_causal_conv_with_state(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(0);
  ctx.set_output(0, ctx.input_elem_type(0), x);
  if (ctx.num_outputs() < 2) return Status::Ok();
  SymbolicShape state = unknown_dims(3);
  if (x.has_rank && x.dims.size() == 3) {
    state.dims[0] = x.dims[0];
    state.dims[1] = x.dims[1];
  }
  const SymbolicShape w = ctx.input_shape(1);
  if (w.has_rank && w.dims.size() == 3 && w.dims[2].value && *w.dims[2].value >= 1)
    state.dims[2] = Dim{*w.dims[2].value - 1, "", ""};
  ctx.set_output(1, ctx.input_elem_type(0), state);
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "CausalConvWithState", 27, 1000, infer_causal_conv_with_state);
}  // namespace onyx::ops
