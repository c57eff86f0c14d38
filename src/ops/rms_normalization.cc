// RMSNormalization (ai.onnx, since 23): Y has Scale's element type and X's shape. An axis
// outside [-rank, rank) of a known rank is a certain contradiction.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_rms_normalization(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(0);
  const DataType y_type = ctx.has_input(1) ? ctx.input_elem_type(1) : ctx.input_elem_type(0);
  ctx.set_output(0, y_type, x);
  return normalized_stats_shape(x, ctx.attr_int("axis", -1)).status();
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "RMSNormalization", 23, 1000, infer_rms_normalization);
}  // namespace onyx::ops
