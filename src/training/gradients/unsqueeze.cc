// Unsqueeze only moves dims: dX = dY reshaped to X's shape (read at run time). Axes inputs get none.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status unsqueeze_gradient(GradientContext& ctx) {
  if (ctx.needs_grad[0] && !ctx.output_grads[0].empty())
    ctx.input_grads[0] = ctx.emit.op("Reshape", {ctx.output_grads[0], ctx.emit.op("Shape", {ctx.input(0)})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Unsqueeze", unsqueeze_gradient);
}  // namespace onyx::training
