// com.microsoft SkipSimplifiedLayerNormalization: output and input_skip_bias_sum (outputs 0
// and 3) have the input's type and shape; mean and inv_std_var (outputs 1 and 2) are float32
// with that shape's last dim set to 1.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_skip_simplified_layer_normalization(InferenceContext& ctx) {
  SymbolicShape s = ctx.input_shape(0);
  const DataType t = ctx.input_elem_type(0);
  ctx.set_output(0, t, s);
  if (ctx.num_outputs() > 3) ctx.set_output(3, t, s);
  if (s.has_rank && !s.dims.empty()) s.dims.back() = Dim{1, ""};
  for (int out = 1; out <= 2 && out < ctx.num_outputs(); ++out) ctx.set_output(out, DataType::kFloat, s);
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("com.microsoft", "SkipSimplifiedLayerNormalization", 1, 1000, infer_skip_simplified_layer_normalization);
}  // namespace onyx::ops
