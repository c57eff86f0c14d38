// BatchNormalizationGrad (ai.onyx.training): dX typed and shaped as X (input 1); dScale and dB
// typed as X, shaped [C] (X's dim 1).
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_batch_normalization_grad(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(1);
  const DataType t = ctx.input_elem_type(1);
  if (ctx.num_outputs() > 0) ctx.set_output(0, t, x);
  SymbolicShape per_channel;
  per_channel.has_rank = true;
  per_channel.dims.push_back(x.has_rank && x.dims.size() > 1 ? x.dims[1] : Dim{});
  for (int i = 1; i < 3 && i < ctx.num_outputs(); ++i) ctx.set_output(i, t, per_channel);
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.training", "BatchNormalizationGrad", 1, 1000, infer_batch_normalization_grad);

}  // namespace onyx::ops
