// SwiGLU (ai.onnx, since 28): Y has A's type and shape (A and B must have one shape; two known
// dims that differ are a certain contradiction).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_swiglu(InferenceContext& ctx) {
  const SymbolicShape a = ctx.input_shape(0);
  ctx.set_output(0, ctx.input_elem_type(0), a);
  const SymbolicShape b = ctx.input_shape(1);
  if (!a.has_rank || !b.has_rank) return Status::Ok();
  if (a.dims.size() != b.dims.size())
    return invalid_argument("SwiGLU: A and B have ranks ", a.dims.size(), " and ", b.dims.size());
  for (size_t i = 0; i < a.dims.size(); ++i)
    if (a.dims[i].is_known() && b.dims[i].is_known() && *a.dims[i].value != *b.dims[i].value)
      return invalid_argument("SwiGLU: A and B differ in dim ", i, " (", *a.dims[i].value, " and ", *b.dims[i].value, ")");
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "SwiGLU", 28, 1000, infer_swiglu);
}  // namespace onyx::ops
