// SimplifiedLayerNormalization (ai.onnx domain, since 1, as ONNX Runtime registers it; RMS
// normalisation): Y has Scale's type and X's shape; inv_std_var (output 1) has the shape
// X.shape[:axis] + [1] * (rank - axis) and the type stash_type (float32 by default, double
// for 11).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_simplified_layer_normalization(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(0);
  const DataType y_type = ctx.has_input(1) ? ctx.input_elem_type(1) : ctx.input_elem_type(0);
  ctx.set_output(0, y_type, x);
  if (ctx.num_outputs() < 2) return Status::Ok();
  const int64_t stash_type = ctx.attr_int("stash_type", 1);
  const DataType stash = stash_type == 1 ? DataType::kFloat : stash_type == 11 ? DataType::kDouble : DataType::kUndefined;
  auto stats = normalized_stats_shape(x, ctx.attr_int("axis", -1));
  ctx.set_output(1, stash, stats.ok() ? *stats : SymbolicShape{});
  return stats.status();
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "SimplifiedLayerNormalization", 1, 1000, infer_simplified_layer_normalization);
}  // namespace onyx::ops
