// com.microsoft QLinearConcat: Y has the X inputs' element type (inputs 2, 5, 8, ...) and their
// rank, with dims left unknown (the kernel checks them).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_qlinear_concat(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(2);
  ctx.set_output(0, ctx.input_elem_type(2), x.has_rank ? unknown_dims(int64_t(x.dims.size())) : SymbolicShape{});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_OP_RULE("com.microsoft", "QLinearConcat", 1, 1000, infer_qlinear_concat);
}  // namespace onyx::ops
