// CumSum(X, axis): dX = CumSum(dY, axis) taken the other way (reverse flipped, exclusive kept).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status cum_sum_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  const ir::Attribute* exclusive = ctx.node.attribute("exclusive");
  const ir::Attribute* reverse = ctx.node.attribute("reverse");
  ctx.input_grads[0] = ctx.emit.op(
      "CumSum", {ctx.output_grads[0], ctx.input(1)},
      {{"exclusive", GradientEmitter::int_attr("exclusive", exclusive ? exclusive->i : 0)},
       {"reverse", GradientEmitter::int_attr("reverse", reverse && reverse->i ? 0 : 1)}});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "CumSum", cum_sum_gradient);
}  // namespace onyx::training
