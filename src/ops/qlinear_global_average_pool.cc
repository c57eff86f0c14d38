// com.microsoft QLinearGlobalAveragePool: X's element type; N and C kept (C last with
// channels_last = 1), every spatial dim 1.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_qlinear_global_average_pool(InferenceContext& ctx) {
  SymbolicShape out = ctx.input_shape(0);
  const bool last = ctx.attr_int("channels_last", 0) != 0;
  const size_t rank = out.dims.size();
  for (size_t d = 1; d < rank; ++d)
    if (d != (last ? rank - 1 : 1)) out.dims[d] = known_dim(1);
  ctx.set_output(0, ctx.input_elem_type(0), std::move(out));
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_OP_RULE("com.microsoft", "QLinearGlobalAveragePool", 1, 1000, infer_qlinear_global_average_pool);
}  // namespace onyx::ops
