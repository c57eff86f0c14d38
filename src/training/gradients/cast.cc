// Cast: dX = dY cast back to X's type (for a floating X; an integer X has no gradient).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status cast_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  const DataType from = ctx.elem_type(ctx.input(0));
  if (from == DataType::kUndefined) return not_implemented("Cast's gradient needs the input's type known statically");
  ctx.input_grads[0] = ctx.emit.op("Cast", {ctx.output_grads[0]}, {{"to", GradientEmitter::int_attr("to", int64_t(from))}});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Cast", cast_gradient);
}  // namespace onyx::training
