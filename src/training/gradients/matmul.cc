// MatMul (Y = A @ B, both of rank 2 or more, batch dims broadcasting):
//   dA = dY @ B^T and dB = A^T @ dY (transposing the last two dims), each summed over the
//   batch dims that broadcasting added or stretched (a 2-D B under a batched A: one Gemm over
//   A's rows flattened). The transposes are com.microsoft FusedMatMul's transA / transB, which
//   read the operand in place (no Transpose node, no copy). Rank-1 operands are refused by name.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

// op(a) @ op(b), op swapping the last two dims where asked.
std::string product(GradientEmitter& e, const std::string& a, bool trans_a, const std::string& b, bool trans_b) {
  return e.node("FusedMatMul", {a, b},
                {{"transA", GradientEmitter::int_attr("transA", trans_a)},
                 {"transB", GradientEmitter::int_attr("transB", trans_b)}},
                1, "com.microsoft")[0];
}

Status matmul_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const SymbolicShape& a = e.type_of(ctx.input(0)).shape;
  const SymbolicShape& b = e.type_of(ctx.input(1)).shape;
  const SymbolicShape& y = e.type_of(ctx.output(0)).shape;
  if (!a.has_rank || !b.has_rank || !y.has_rank)
    return not_implemented("MatMul's gradient needs the ranks of its inputs known statically");
  if (a.dims.size() < 2 || b.dims.size() < 2)
    return not_implemented("MatMul's gradient with a rank-1 operand (", a.to_string(), " @ ", b.to_string(), ")");
  // A 2-D B under a batched A (a linear layer's weight): dB = A^T @ dY over every row at once,
  // one Gemm of the flattened rows, instead of batched products summed over the batch.
  const bool flat_weight = ctx.needs_grad[1] && b.dims.size() == 2 && a.dims.size() > 2 && b.dims[0].value &&
                           b.dims[1].value;
  if (flat_weight) {
    const std::string rows_a = e.op("Reshape", {ctx.input(0), e.int64s({-1, *b.dims[0].value})});
    const std::string rows_dy = e.op("Reshape", {dy, e.int64s({-1, *b.dims[1].value})});
    ctx.input_grads[1] = e.op("Gemm", {rows_a, rows_dy}, {{"transA", GradientEmitter::int_attr("transA", 1)}});
  }
  for (size_t i = 0; i < 2; ++i) {
    if (!ctx.needs_grad[i] || (i == 1 && flat_weight)) continue;
    const SymbolicShape& self = i == 0 ? a : b;
    // The full gradient has Y's batch dims and this operand's last two.
    SymbolicShape full = y;
    full.dims[full.dims.size() - 2] = self.dims[self.dims.size() - 2];
    full.dims[full.dims.size() - 1] = self.dims[self.dims.size() - 1];
    const std::string g = i == 0 ? product(e, dy, false, ctx.input(1), true) : product(e, ctx.input(0), true, dy, false);
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[i], e.sum_to_shape(g, full, ctx.input(i)));
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "MatMul", matmul_gradient);
}  // namespace onyx::training
