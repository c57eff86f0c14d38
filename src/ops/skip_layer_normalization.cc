// com.microsoft SkipLayerNormalization: output and input_skip_bias_sum (outputs 0 and 3) have
// the input's type and shape; mean and inv_std_var (outputs 1 and 2) are float32 with shape
// input.shape[:-1] + [1].
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer(InferenceContext& ctx) {
  const ir::TypeInfo* t = ctx.input_type(0);
  if (!t) return Status::Ok();
  ctx.set_output_type(0, *t);
  if (ctx.num_outputs() > 3) ctx.set_output_type(3, *t);
  SymbolicShape stats = ctx.input_shape(0);
  if (stats.has_rank && !stats.dims.empty()) stats.dims.back() = Dim{1, ""};
  for (int out = 1; out <= 2 && out < ctx.num_outputs(); ++out) ctx.set_output(out, DataType::kFloat, stats);
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("com.microsoft", "SkipLayerNormalization", 1, 1000, infer);

}  // namespace onyx::ops
