// LayerNormalization: Y has X's type and shape. Mean and InvStdDev (outputs 1 and 2) have the
// shape X.shape[:axis] + [1] * (rank - axis) and the type stash_type (float32, the default;
// left unknown for any other stash_type).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_layer_normalization(InferenceContext& ctx) {
  ONYX_RETURN_IF_ERROR(infer_same_as_input0(ctx));
  if (ctx.num_outputs() < 2) return Status::Ok();
  const DataType stash = ctx.attr_int("stash_type", 1) == 1 ? DataType::kFloat : DataType::kUndefined;
  const SymbolicShape x = ctx.input_shape(0);
  auto stats = normalized_stats_shape(x, ctx.attr_int("axis", -1));
  for (int out = 1; out <= 2 && out < ctx.num_outputs(); ++out) ctx.set_output(out, stash, stats.ok() ? *stats : SymbolicShape{});
  return stats.status();
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "LayerNormalization", 1, 1000, infer_layer_normalization);
}  // namespace onyx::ops
