// LayerNormalizationGrad (ai.onyx.training): dX like X; dScale and dBias of X's element type
// and shape X.shape[axis:].
#include <algorithm>

#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_layer_norm_grad(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(1);
  ctx.set_output(0, ctx.input_elem_type(1), x);
  SymbolicShape cols;
  if (x.has_rank) {
    int64_t axis = ctx.attr_int("axis", -1);
    if (axis < 0) axis += int64_t(x.dims.size());
    if (axis >= 0 && axis < int64_t(x.dims.size())) {
      cols.has_rank = true;
      cols.dims.assign(x.dims.begin() + axis, x.dims.end());
    }
  }
  for (int i = 1; i < std::min(3, ctx.num_outputs()); ++i) ctx.set_output(i, ctx.input_elem_type(1), cols);
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.training", "LayerNormalizationGrad", 1, 1000, infer_layer_norm_grad);

}  // namespace onyx::ops
