// CastLike(X, like): dX = dY cast back to X's type (CastLike(dY, X)) where X is floating, none
// otherwise; `like` gives only its type, so it gets no gradient.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status cast_like_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  const DataType from = ctx.elem_type(ctx.input(0));
  if (from == DataType::kUndefined) return not_implemented("CastLike's gradient needs the input's type known statically");
  if (!is_float_type(from)) return Status::Ok();
  ctx.input_grads[0] = ctx.emit.op("CastLike", {ctx.output_grads[0], ctx.input(0)});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "CastLike", cast_like_gradient);
}  // namespace onyx::training
