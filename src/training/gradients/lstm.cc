// LSTM: the gradients of X, W, R, B, initial_h, initial_c and P from one LSTMGrad node (onyx's
// kernel, ai.onyx.training: backpropagation through time over the forward run again), fed the
// LSTM's inputs and the gradients of Y, Y_h and Y_c that flow ("" where none). Default
// activations, no clip, no input_forget and layout 0 only; the rest is refused here.
// sequence_lens has no gradient.
#include <cmath>

#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status lstm_gradient(GradientContext& ctx) {
  const ir::Node& n = ctx.node;
  if (ctx.output_grads[0].empty() && ctx.output_grads[1].empty() && ctx.output_grads[2].empty()) return Status::Ok();
  if (const ir::Attribute* a = n.attribute("input_forget"); a && a->i != 0)
    return not_implemented("LSTM's gradient with input_forget");
  if (const ir::Attribute* a = n.attribute("layout"); a && a->i != 0) return not_implemented("LSTM's gradient with layout 1");
  if (n.attribute("clip")) return not_implemented("LSTM's gradient with clip");
  if (const ir::Attribute* a = n.attribute("activations")) {
    for (size_t i = 0; i < a->strings.size(); ++i)
      if (a->strings[i] != (i % 3 == 0 ? "Sigmoid" : "Tanh"))
        return not_implemented("LSTM's gradient with activations other than Sigmoid, Tanh, Tanh");
  }
  std::vector<std::string> inputs;
  for (size_t i = 0; i < 8; ++i) inputs.push_back(i < n.inputs.size() ? n.inputs[i] : "");
  for (size_t k = 0; k < 3; ++k) inputs.push_back(ctx.output_grads[k]);
  std::map<std::string, ir::Attribute> attributes = n.attributes;
  const std::vector<std::string> grads = ctx.emit.node("LSTMGrad", inputs, std::move(attributes), 7, "ai.onyx.training");
  const size_t source[] = {0, 1, 2, 3, 5, 6, 7};
  for (size_t k = 0; k < 7; ++k)
    if (source[k] < n.inputs.size() && !n.inputs[source[k]].empty() && ctx.needs_grad[source[k]])
      ctx.input_grads[source[k]] = grads[k];
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "LSTM", lstm_gradient);
}  // namespace onyx::training
