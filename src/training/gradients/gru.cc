// GRU: the gradients of X, W, R, B and initial_h from one GRUGrad node (onyx's kernel,
// ai.onyx.training: backpropagation through time over the forward run again; both
// linear_before_reset forms), fed the GRU's inputs and the gradients of Y and Y_h that flow
// ("" where none). Default activations, no clip and layout 0 only; the rest is refused here.
#include "training/gradients/recurrent_common.h"

namespace onyx::training {
namespace {

Status gru_gradient(GradientContext& ctx) {
  const ir::Node& n = ctx.node;
  if (ctx.output_grads[0].empty() && ctx.output_grads[1].empty()) return Status::Ok();
  ONYX_RETURN_IF_ERROR(refuse_layout_and_clip(n, "GRU"));
  if (const ir::Attribute* a = n.attribute("activations")) {
    for (size_t i = 0; i < a->strings.size(); ++i)
      if (a->strings[i] != (i % 2 == 0 ? "Sigmoid" : "Tanh"))
        return not_implemented("GRU's gradient with activations other than Sigmoid, Tanh");
  }
  emit_recurrent_gradient(ctx, "GRUGrad", 6, 2, {0, 1, 2, 3, 5});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "GRU", gru_gradient);
}  // namespace onyx::training
