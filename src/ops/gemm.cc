// Gemm: Y = alpha * A' B' + beta * C with A' = transA ? A^T : A (M x K), B' likewise (K x N);
// Y is (M, N) in A's element type. C only broadcasts into Y, so it does not shape it.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_gemm(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape a = ctx.input_shape(0), b = ctx.input_shape(1);
  SymbolicShape out = unknown_dims(2);
  const bool trans_a = ctx.attr_int("transA", 0) != 0, trans_b = ctx.attr_int("transB", 0) != 0;
  if (a.has_rank && a.dims.size() == 2) out.dims[0] = a.dims[trans_a ? 1 : 0];
  if (b.has_rank && b.dims.size() == 2) out.dims[1] = b.dims[trans_b ? 0 : 1];
  if (a.has_rank && a.dims.size() == 2 && b.has_rank && b.dims.size() == 2) {
    const Dim& ka = a.dims[trans_a ? 0 : 1];
    const Dim& kb = b.dims[trans_b ? 1 : 0];
    if (ka.value && kb.value && *ka.value != *kb.value) {
      ctx.set_output(0, elem, out);
      return invalid_model("Gemm inner dims ", *ka.value, " and ", *kb.value, " differ");
    }
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "Gemm", 1, 1000, infer_gemm);
}  // namespace onyx::ops
