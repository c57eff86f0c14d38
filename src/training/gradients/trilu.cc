// Trilu(X, k): keeps a triangle, a fixed mask, so dX = Trilu(dY, k) with the same attributes.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status trilu_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  std::vector<std::string> inputs{ctx.output_grads[0]};
  if (ctx.node.inputs.size() > 1) inputs.push_back(ctx.node.inputs[1]);
  ctx.input_grads[0] = ctx.emit.op("Trilu", inputs, ctx.node.attributes);
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Trilu", trilu_gradient);
}  // namespace onyx::training
