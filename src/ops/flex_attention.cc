// FlexAttention (ai.onnx.preview, since 1): Y has Q's type and the shape
// (Q.shape[0], Q.shape[1], Q.shape[2], V.shape[3]); unknown dims stay unknown.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_flex_attention(InferenceContext& ctx) {
  const SymbolicShape q = ctx.input_shape(0), v = ctx.input_shape(2);
  SymbolicShape y = unknown_dims(4);
  if (q.has_rank && q.dims.size() == 4)
    for (size_t i = 0; i < 3; ++i) y.dims[i] = q.dims[i];
  if (v.has_rank && v.dims.size() == 4) y.dims[3] = v.dims[3];
  ctx.set_output(0, ctx.input_elem_type(0), y);
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("ai.onnx.preview", "FlexAttention", 1, 1000, infer_flex_attention);
}  // namespace onyx::ops
