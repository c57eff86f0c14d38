// Pow (Y = X ^ E): dX = dY * E * X ^ (E - 1) and dE = dY * Y * log(X), each summed back to
// its input's shape (broadcasting).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status pow_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const std::string& x = ctx.input(0);
  const std::string& p = ctx.input(1);
  if (ctx.needs_grad[0]) {
    const DataType pt = ctx.elem_type(p);
    if (pt == DataType::kUndefined) return not_implemented("Pow's gradient needs the exponent's type known statically");
    ONYX_ASSIGN_OR_RETURN(std::string one, e.scalar(pt, 1.0));
    std::string exponent = p;
    if (pt != ctx.elem_type(x))
      exponent = e.op("Cast", {p}, {{"to", GradientEmitter::int_attr("to", int64_t(ctx.elem_type(x)))}});
    const std::string slope = e.op("Mul", {exponent, e.op("Pow", {x, e.op("Sub", {p, one})})});
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[0], e.sum_to_shape_of(e.op("Mul", {dy, slope}), ctx.output(0), x));
  }
  if (ctx.needs_grad[1]) {
    const std::string full = e.op("Mul", {dy, e.op("Mul", {ctx.output(0), e.op("Log", {x})})});
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[1], e.sum_to_shape_of(full, ctx.output(0), p));
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Pow", pow_gradient);
}  // namespace onyx::training
