// Clip(X, min, max): dX = dY where min <= X <= max (bounds included, as PyTorch's clamp), else
// 0. The bounds come from inputs 1 and 2 (opset 11 on; either may be omitted) or from the
// attributes before; a bound that needs a gradient itself is refused.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status clip_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  if (ctx.needs_grad[1] || ctx.needs_grad[2])
    return not_implemented("Clip's gradient with respect to its bounds (only its input's is built)");
  GradientEmitter& e = ctx.emit;
  const DataType t = ctx.elem_type(ctx.input(0));
  const std::string& x = ctx.input(0);
  std::string low, high;
  if (e.opset() >= 11) {
    if (ctx.node.inputs.size() > 1) low = ctx.node.inputs[1];
    if (ctx.node.inputs.size() > 2) high = ctx.node.inputs[2];
  } else {
    if (const ir::Attribute* a = ctx.node.attribute("min")) {
      ONYX_ASSIGN_OR_RETURN(low, e.scalar(t, a->f));
    }
    if (const ir::Attribute* a = ctx.node.attribute("max")) {
      ONYX_ASSIGN_OR_RETURN(high, e.scalar(t, a->f));
    }
  }
  std::string inside;
  if (!low.empty()) inside = e.op("GreaterOrEqual", {x, low});
  if (!high.empty()) {
    const std::string below = e.op("LessOrEqual", {x, high});
    inside = inside.empty() ? below : e.op("And", {inside, below});
  }
  if (inside.empty()) {
    ctx.input_grads[0] = ctx.output_grads[0];
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(t, 0.0));
  ctx.input_grads[0] = e.op("Where", {inside, ctx.output_grads[0], zero});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Clip", clip_gradient);
}  // namespace onyx::training
