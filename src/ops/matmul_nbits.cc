// com.microsoft MatMulNBits: Y = A x dequantised(B)^T, shape A.shape[:-1] + [N] (attribute N),
// A's element type.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_matmul_nbits(InferenceContext& ctx) {
  SymbolicShape s = ctx.input_shape(0);
  if (s.has_rank && !s.dims.empty()) {
    const int64_t n = ctx.attr_int("N", -1);
    s.dims.back() = n >= 0 ? Dim{n, ""} : Dim{};
  }
  ctx.set_output(0, ctx.input_elem_type(0), s);
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("com.microsoft", "MatMulNBits", 1, 1000, infer_matmul_nbits);
}  // namespace onyx::ops
