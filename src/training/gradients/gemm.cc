// Gemm (Y = alpha * A' @ B' + beta * C, A' = A^T when transA, B' = B^T when transB):
//   dA' = alpha * dY @ B'^T, dB' = alpha * A'^T @ dY (transposed back when the input was),
//   dC = beta * dY summed to C's shape (C broadcasts to Y).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

int64_t attr_int(const ir::Node& n, const char* name, int64_t fallback) {
  const ir::Attribute* a = n.attribute(name);
  return a ? a->i : fallback;
}

float attr_float(const ir::Node& n, const char* name, float fallback) {
  const ir::Attribute* a = n.attribute(name);
  return a ? a->f : fallback;
}

Status gemm_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const bool ta = attr_int(ctx.node, "transA", 0) != 0, tb = attr_int(ctx.node, "transB", 0) != 0;
  const float alpha = attr_float(ctx.node, "alpha", 1.f), beta = attr_float(ctx.node, "beta", 1.f);
  auto gemm = [&](const std::string& a, const std::string& b, bool trans_a, bool trans_b) {
    return e.op("Gemm", {a, b},
                {{"transA", GradientEmitter::int_attr("transA", trans_a)},
                 {"transB", GradientEmitter::int_attr("transB", trans_b)},
                 {"alpha", GradientEmitter::float_attr("alpha", alpha)}});
  };
  // dA (in A's own layout): transA ? alpha * B' @ dY^T : alpha * dY @ B'^T.
  if (ctx.needs_grad[0])
    ctx.input_grads[0] = ta ? gemm(ctx.input(1), dy, tb, true) : gemm(dy, ctx.input(1), false, !tb);
  // dB (in B's own layout): transB ? alpha * dY^T @ A' : alpha * A'^T @ dY.
  if (ctx.needs_grad[1])
    ctx.input_grads[1] = tb ? gemm(dy, ctx.input(0), true, ta) : gemm(ctx.input(0), dy, !ta, false);
  if (ctx.node.inputs.size() > 2 && ctx.needs_grad[2]) {
    std::string g = dy;
    if (beta != 1.f) {
      ONYX_ASSIGN_OR_RETURN(std::string b, e.scalar(ctx.elem_type(ctx.output(0)), beta));
      g = e.op("Mul", {dy, b});
    }
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[2], e.sum_to_shape_of(g, ctx.output(0), ctx.input(2)));
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Gemm", gemm_gradient);
}  // namespace onyx::training
