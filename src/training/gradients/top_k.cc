// TopK(X, K) -> (values, indices): dX = dValues put back at the indices the values came from
// (scatter_add_common.h); the indices output carries no gradient.
#include "training/gradients/scatter_add_common.h"

namespace onyx::training {
namespace {

Status top_k_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  const ir::Attribute* axis = ctx.node.attribute("axis");
  ONYX_ASSIGN_OR_RETURN(ctx.input_grads[0],
                        scatter_add_gradient(ctx, ctx.output_grads[0], ctx.output(1), axis ? axis->i : -1));
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "TopK", top_k_gradient);
}  // namespace onyx::training
