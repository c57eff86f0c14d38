// com.microsoft FusedMatMul (Y = alpha * op(A) @ op(B), op a transpose of the last two dims
// where transA / transB say; both of rank 2 or more; transBatch refused by name):
//   d op(A) = alpha * dY @ op(B)^T and d op(B) = alpha * op(A)^T @ dY, turned back through
//   op, each one FusedMatMul with the right flags (no Transpose nodes), then summed over the
//   batch dims that broadcasting added or stretched. A 2-D B under a batched, untransposed A
//   (a Linear layer's weight, MatMul(x, Transpose(W)) folded by transpose_folding.h): dB is one
//   Gemm over A's rows flattened.
// ai.onyx.training FusedMatMulBias (the same with a bias [N] added; transpose_folding.h makes
// it from a Linear layer's Add): the same, and dBias = dY summed to the bias's shape.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

std::string product(GradientEmitter& e, const std::string& a, bool ta, const std::string& b, bool tb, float alpha) {
  return e.node("FusedMatMul", {a, b},
                {{"transA", GradientEmitter::int_attr("transA", ta)},
                 {"transB", GradientEmitter::int_attr("transB", tb)},
                 {"alpha", GradientEmitter::float_attr("alpha", alpha)}},
                1, "com.microsoft")[0];
}

Status fused_matmul_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  auto flag = [&](const char* name) {
    const ir::Attribute* a = ctx.node.attribute(name);
    return a && a->i != 0;
  };
  if (flag("transBatchA") || flag("transBatchB"))
    return not_implemented("FusedMatMul's gradient with transBatchA or transBatchB");
  const bool ta = flag("transA"), tb = flag("transB");
  const ir::Attribute* alpha_attr = ctx.node.attribute("alpha");
  const float alpha = alpha_attr ? alpha_attr->f : 1.f;
  const SymbolicShape& a = e.type_of(ctx.input(0)).shape;
  const SymbolicShape& b = e.type_of(ctx.input(1)).shape;
  const SymbolicShape& y = e.type_of(ctx.output(0)).shape;
  if (!a.has_rank || !b.has_rank || !y.has_rank)
    return not_implemented("FusedMatMul's gradient needs the ranks of its inputs known statically");
  if (a.dims.size() < 2 || b.dims.size() < 2)
    return not_implemented("FusedMatMul's gradient with a rank-1 operand (", a.to_string(), " @ ", b.to_string(), ")");
  const bool flat_weight = ctx.needs_grad[1] && !ta && b.dims.size() == 2 && a.dims.size() > 2 && b.dims[0].value &&
                           b.dims[1].value;
  if (flat_weight) {
    const int64_t k = tb ? *b.dims[1].value : *b.dims[0].value, n = tb ? *b.dims[0].value : *b.dims[1].value;
    const std::string rows_a = e.op("Reshape", {ctx.input(0), e.int64s({-1, k})});
    const std::string rows_dy = e.op("Reshape", {dy, e.int64s({-1, n})});
    // B [K, N]: dB = alpha A^T dY; B stored [N, K] (transB): dB = alpha dY^T A.
    ctx.input_grads[1] =
        e.op("Gemm", tb ? std::vector<std::string>{rows_dy, rows_a} : std::vector<std::string>{rows_a, rows_dy},
             {{"transA", GradientEmitter::int_attr("transA", 1)}, {"alpha", GradientEmitter::float_attr("alpha", alpha)}});
  }
  for (size_t i = 0; i < 2; ++i) {
    if (!ctx.needs_grad[i] || (i == 1 && flat_weight)) continue;
    const SymbolicShape& self = i == 0 ? a : b;
    SymbolicShape full = y;  // Y's batch dims, this operand's last two (as stored)
    full.dims[full.dims.size() - 2] = self.dims[self.dims.size() - 2];
    full.dims[full.dims.size() - 1] = self.dims[self.dims.size() - 1];
    std::string g;
    if (i == 0) g = ta ? product(e, ctx.input(1), tb, dy, true, alpha) : product(e, dy, false, ctx.input(1), !tb, alpha);
    else g = tb ? product(e, dy, true, ctx.input(0), ta, alpha) : product(e, ctx.input(0), !ta, dy, false, alpha);
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[i], e.sum_to_shape(g, full, ctx.input(i)));
  }
  if (ctx.node.inputs.size() > 2 && ctx.needs_grad[2]) {
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[2], e.sum_to_shape_of(dy, ctx.output(0), ctx.input(2)));
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("com.microsoft", "FusedMatMul", fused_matmul_gradient);
ONYX_REGISTER_GRADIENT("ai.onyx.training", "FusedMatMulBias", fused_matmul_gradient);
}  // namespace onyx::training
