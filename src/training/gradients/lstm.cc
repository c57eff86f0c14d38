// LSTM: the gradients of X, W, R, B, initial_h, initial_c and P from one LSTMGrad node (onyx's
// kernel, ai.onyx.training: backpropagation through time over the forward run again), fed the
// LSTM's inputs and the gradients of Y, Y_h and Y_c that flow ("" where none). Default
// activations, no clip, no input_forget and layout 0 only; the rest is refused here.
// sequence_lens has no gradient.
#include "training/gradients/recurrent_common.h"

namespace onyx::training {
namespace {

Status lstm_gradient(GradientContext& ctx) {
  const ir::Node& n = ctx.node;
  if (ctx.output_grads[0].empty() && ctx.output_grads[1].empty() && ctx.output_grads[2].empty()) return Status::Ok();
  ONYX_RETURN_IF_ERROR(refuse_layout_and_clip(n, "LSTM"));
  if (const ir::Attribute* a = n.attribute("input_forget"); a && a->i != 0)
    return not_implemented("LSTM's gradient with input_forget");
  if (const ir::Attribute* a = n.attribute("activations")) {
    for (size_t i = 0; i < a->strings.size(); ++i)
      if (a->strings[i] != (i % 3 == 0 ? "Sigmoid" : "Tanh"))
        return not_implemented("LSTM's gradient with activations other than Sigmoid, Tanh, Tanh");
  }
  emit_recurrent_gradient(ctx, "LSTMGrad", 8, 3, {0, 1, 2, 3, 5, 6, 7});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "LSTM", lstm_gradient);
}  // namespace onyx::training
