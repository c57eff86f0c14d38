// ReduceProd: dX = dY * (product of the other elements of X's group), exact with zeros (as
// PyTorch's prod): Y / X where the group holds no zero; at the group's only zero, the product
// of its other elements; 0 elsewhere. Y and dY with the reduced dims kept (reduce_common.h).
#include "training/gradients/reduce_common.h"

namespace onyx::training {
namespace {

Status reduce_prod_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  ONYX_ASSIGN_OR_RETURN(const KeptReduction r, kept_reduction(ctx));
  if (r.nothing) {
    ctx.input_grads[0] = ctx.output_grads[0];
    return Status::Ok();
  }
  const DataType t = ctx.elem_type(ctx.input(0));
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(t, 0.0));
  ONYX_ASSIGN_OR_RETURN(std::string one, e.scalar(t, 1.0));
  const std::string& x = ctx.input(0);
  const std::string is_zero = e.op("Equal", {x, zero});
  const std::string zeros = e.reduce_sum(e.op("Cast", {is_zero}, {{"to", GradientEmitter::int_attr("to", int64_t(t))}}),
                                         r.axes, true);
  const std::string without = e.op("Where", {is_zero, one, x});
  const std::string others = reduce_over(e, "ReduceProd", without, r.axes, true);  // the group's non-zero elements
  const std::string no_zero = e.op("Div", {r.y, e.op("Where", {is_zero, one, x})});
  const std::string one_zero = e.op("Where", {is_zero, others, zero});
  const std::string partial = e.op("Where", {e.op("Equal", {zeros, zero}), no_zero,
                                            e.op("Where", {e.op("Equal", {zeros, one}), one_zero, zero})});
  ctx.input_grads[0] = e.op("Mul", {r.dy, partial});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "ReduceProd", reduce_prod_gradient);
}  // namespace onyx::training
