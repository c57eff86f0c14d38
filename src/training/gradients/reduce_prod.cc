// ReduceProd: dX = dY * (product of the other elements of X's group), exact with zeros (as
// PyTorch's prod): Y / X where the group holds no zero; at the group's only zero, the product
// of its other elements; 0 elsewhere. Y and dY with the reduced dims kept (reduce_common.h).
#include "training/gradients/reduce_common.h"

namespace onyx::training {
namespace {

Status reduce_prod_gradient(GradientContext& ctx) {
  return kept_reduction_gradient(ctx, [](GradientEmitter& e, const KeptReduction& r, const std::string& x,
                                         DataType t) -> Result<std::string> {
    ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(t, 0.0));
    ONYX_ASSIGN_OR_RETURN(std::string one, e.scalar(t, 1.0));
    const std::string is_zero = e.op("Equal", {x, zero});
    const std::string zeros = e.reduce_sum(e.op("Cast", {is_zero}, {{"to", GradientEmitter::int_attr("to", int64_t(t))}}),
                                           r.axes, true);
    const std::string without = e.op("Where", {is_zero, one, x});  // the zeros read as ones
    const std::string others = reduce_over(e, "ReduceProd", without, r.axes, true);  // the group's non-zero elements
    const std::string no_zero = e.op("Div", {r.y, without});
    const std::string one_zero = e.op("Where", {is_zero, others, zero});
    return e.op("Mul", {r.dy, e.op("Where", {e.op("Equal", {zeros, zero}), no_zero,
                                             e.op("Where", {e.op("Equal", {zeros, one}), one_zero, zero})})});
  });
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "ReduceProd", reduce_prod_gradient);
}  // namespace onyx::training
