// Where(cond, A, B): dA = dY where cond, else 0; dB = dY where not cond, else 0; each summed
// back to its input's shape (broadcasting). The condition has no gradient.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status where_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(ctx.elem_type(ctx.output(0)), 0.0));
  for (size_t i = 1; i < 3; ++i) {
    if (!ctx.needs_grad[i]) continue;
    const std::string picked = i == 1 ? e.op("Where", {ctx.input(0), dy, zero}) : e.op("Where", {ctx.input(0), zero, dy});
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[i], e.sum_to_shape_of(picked, ctx.output(0), ctx.input(i)));
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Where", where_gradient);
}  // namespace onyx::training
