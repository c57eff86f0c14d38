// Where: the type of X (input 1; Y must match it), the broadcast of condition, X and Y.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_where(InferenceContext& ctx) {
  DataType elem = ctx.input_elem_type(1);
  if (elem == DataType::kUndefined) elem = ctx.input_elem_type(2);
  auto shape = broadcast_symbolic({ctx.input_shape(0), ctx.input_shape(1), ctx.input_shape(2)});
  if (!shape.ok()) {
    ctx.set_output(0, elem, {});
    return shape.take_status();
  }
  ctx.set_output(0, elem, std::move(shape).value());
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("", "Where", 1, 1000, infer_where);
}  // namespace onyx::ops
