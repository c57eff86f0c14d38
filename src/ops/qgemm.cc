// com.microsoft QGemm: Y (M, N) from A (M, K) / (K, M) with transA and B (K, N) / (N, K) with
// transB; y_zero_point's element type when given (input 8), else float32.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_qgemm(InferenceContext& ctx) {
  const DataType elem = ctx.has_input(8) ? ctx.input_elem_type(8) : DataType::kFloat;
  const SymbolicShape a = ctx.input_shape(0), b = ctx.input_shape(3);
  SymbolicShape out = unknown_dims(2);
  if (a.has_rank && a.dims.size() == 2) out.dims[0] = a.dims[ctx.attr_int("transA", 0) ? 1 : 0];
  if (b.has_rank && b.dims.size() == 2) out.dims[1] = b.dims[ctx.attr_int("transB", 0) ? 0 : 1];
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_OP_RULE("com.microsoft", "QGemm", 1, 1000, infer_qgemm);
}  // namespace onyx::ops
