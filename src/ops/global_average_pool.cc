// GlobalAveragePool: X's element type and shape [N, C, 1, 1, ...] (every spatial dim becomes 1).
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_global_average_pool(InferenceContext& ctx) {
  SymbolicShape out = ctx.input_shape(0);
  for (size_t d = 2; d < out.dims.size(); ++d) out.dims[d] = known_dim(1);
  ctx.set_output(0, ctx.input_elem_type(0), std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "GlobalAveragePool", 1, 1000, infer_global_average_pool);

}  // namespace onyx::ops
