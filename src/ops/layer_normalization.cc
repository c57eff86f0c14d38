// LayerNormalization: Y has X's type and shape. Mean and InvStdDev (outputs 1 and 2) have the
// shape X.shape[:axis] + [1] * (rank - axis) and the type stash_type (float32, the default;
// left unknown for any other stash_type).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer(InferenceContext& ctx) {
  ONYX_RETURN_IF_ERROR(infer_same_as_input0(ctx));
  if (ctx.num_outputs() < 2) return Status::Ok();
  const DataType stash = ctx.attr_int("stash_type", 1) == 1 ? DataType::kFloat : DataType::kUndefined;
  const SymbolicShape x = ctx.input_shape(0);
  SymbolicShape stats;
  Status status = Status::Ok();
  if (x.has_rank) {
    const int64_t rank = int64_t(x.dims.size());
    int64_t axis = ctx.attr_int("axis", -1);
    if (axis < -rank || axis >= rank) {
      status = invalid_model("axis ", axis, " is out of range for rank ", rank);
    } else {
      if (axis < 0) axis += rank;
      stats = x;
      for (int64_t d = axis; d < rank; ++d) stats.dims[size_t(d)] = Dim{1, ""};
    }
  }
  for (int out = 1; out <= 2 && out < ctx.num_outputs(); ++out) ctx.set_output(out, stash, stats);
  return status;
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "LayerNormalization", 1, 1000, infer);
}  // namespace onyx::ops
