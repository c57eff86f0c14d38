// FusedMatMulBias (ai.onyx.training): Y = activation(op(A) @ op(B) + bias), op swapping the
// last two dims where transA / transB say (both operands of rank 2 or more), activation "" (none),
// "Gelu" or "FastGelu"; numpy.matmul's output shape.
#include <utility>

#include "ops/matmul_shape.h"

namespace onyx::ops {
namespace {

SymbolicShape op_shape(SymbolicShape s, bool trans) {
  if (trans && s.has_rank && s.dims.size() >= 2) std::swap(s.dims[s.dims.size() - 2], s.dims[s.dims.size() - 1]);
  return s;
}

Status infer_fused_mat_mul_bias(InferenceContext& ctx) {
  auto out = matmul_output_shape(op_shape(ctx.input_shape(0), ctx.attr_int("transA", 0) != 0),
                                 op_shape(ctx.input_shape(1), ctx.attr_int("transB", 0) != 0));
  ctx.set_output(0, ctx.input_elem_type(0), out.ok() ? *out : SymbolicShape{});
  return out.ok() ? Status::Ok() : out.status();
}

}  // namespace

ONYX_REGISTER_OP_RULE("ai.onyx.training", "FusedMatMulBias", 1, 1000, infer_fused_mat_mul_bias);

}  // namespace onyx::ops
