// The shape rule shared by com.microsoft QLinearAdd and QLinearMul: A's element type, the
// broadcast of A's and B's shapes (inputs 0 and 3).
#pragma once
#include "ops/op_rule.h"

namespace onyx::ops {

inline Status infer_qlinear_binary(InferenceContext& ctx) {
  auto shape = broadcast_symbolic({ctx.input_shape(0), ctx.input_shape(3)});
  if (!shape.ok()) return invalid_model(shape.status().message());
  ctx.set_output(0, ctx.input_elem_type(0), std::move(*shape));
  return Status::Ok();
}

}  // namespace onyx::ops
