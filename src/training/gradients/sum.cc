// Sum (variadic, broadcasting): dX_i = dY summed back to X_i's shape.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status sum_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  for (size_t i = 0; i < ctx.node.inputs.size(); ++i) {
    if (!ctx.needs_grad[i]) continue;
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[i], ctx.emit.sum_to_shape_of(dy, ctx.output(0), ctx.input(i)));
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Sum", sum_gradient);
}  // namespace onyx::training
