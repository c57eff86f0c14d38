// Expand: dX = dY summed back to X's shape (the shape input has no gradient).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status expand_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  ONYX_ASSIGN_OR_RETURN(ctx.input_grads[0], ctx.emit.sum_to_shape_of(ctx.output_grads[0], ctx.output(0), ctx.input(0)));
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Expand", expand_gradient);
}  // namespace onyx::training
