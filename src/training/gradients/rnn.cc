// RNN: the gradients of X, W, R, B and initial_h from one RNNGrad node (onyx's kernel,
// ai.onyx.training: backpropagation through time over the forward run again), fed the RNN's
// inputs and the gradients of Y and Y_h that flow ("" where none). Tanh or Relu activations, no
// clip and layout 0 only; the rest is refused here.
#include "training/gradients/recurrent_common.h"

namespace onyx::training {
namespace {

Status rnn_gradient(GradientContext& ctx) {
  const ir::Node& n = ctx.node;
  if (ctx.output_grads[0].empty() && ctx.output_grads[1].empty()) return Status::Ok();
  ONYX_RETURN_IF_ERROR(refuse_layout_and_clip(n, "RNN"));
  if (const ir::Attribute* a = n.attribute("activations")) {
    for (const std::string& act : a->strings)
      if (act != "Tanh" && act != "Relu") return not_implemented("RNN's gradient with the activation ", act);
  }
  emit_recurrent_gradient(ctx, "RNNGrad", 6, 2, {0, 1, 2, 3, 5});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "RNN", rnn_gradient);
}  // namespace onyx::training
