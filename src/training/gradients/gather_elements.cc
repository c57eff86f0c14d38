// GatherElements(data, indices, axis): dData = dY added at the gathered positions
// (scatter_add_common.h); the indices have no gradient.
#include "training/gradients/scatter_add_common.h"

namespace onyx::training {
namespace {

Status gather_elements_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  const ir::Attribute* axis = ctx.node.attribute("axis");
  ONYX_ASSIGN_OR_RETURN(ctx.input_grads[0],
                        scatter_add_gradient(ctx, ctx.output_grads[0], ctx.input(1), axis ? axis->i : 0));
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "GatherElements", gather_elements_gradient);
}  // namespace onyx::training
