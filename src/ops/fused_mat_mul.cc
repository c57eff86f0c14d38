// com.microsoft FusedMatMul: Y = alpha * matmul(op(A), op(B)) with A's element type, where for
// rank r >= 2 op(X) moves dim 0 to position r - 2 when transBatchX, then swaps the last two
// dims when transX (kernels/cpu/fused_mat_mul.cc); the output is numpy.matmul's of those shapes.
#include <utility>

#include "ops/matmul_shape.h"

namespace onyx::ops {
namespace {

SymbolicShape op_shape(SymbolicShape s, bool trans, bool trans_batch) {
  if (!s.has_rank || s.dims.size() < 2) return s;
  if (trans_batch) {
    const Dim first = s.dims.front();
    s.dims.erase(s.dims.begin());
    s.dims.insert(s.dims.end() - 1, first);
  }
  if (trans) std::swap(s.dims[s.dims.size() - 2], s.dims[s.dims.size() - 1]);
  return s;
}

Status infer_fused_mat_mul(InferenceContext& ctx) {
  const SymbolicShape a = op_shape(ctx.input_shape(0), ctx.attr_int("transA", 0) != 0, ctx.attr_int("transBatchA", 0) != 0);
  const SymbolicShape b = op_shape(ctx.input_shape(1), ctx.attr_int("transB", 0) != 0, ctx.attr_int("transBatchB", 0) != 0);
  auto out = matmul_output_shape(a, b);
  ctx.set_output(0, ctx.input_elem_type(0), out.ok() ? *out : SymbolicShape{});
  return out.ok() ? Status::Ok() : out.status();
}

}  // namespace

ONYX_REGISTER_OP_RULE("com.microsoft", "FusedMatMul", 1, 1000, infer_fused_mat_mul);

}  // namespace onyx::ops
