// RNN: the gradients of X, W, R, B and initial_h from one RNNGrad node (onyx's kernel,
// ai.onyx.training: backpropagation through time over the forward run again), fed the RNN's
// inputs and the gradients of Y and Y_h that flow ("" where none). Tanh or Relu activations, no
// clip and layout 0 only; the rest is refused here.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status rnn_gradient(GradientContext& ctx) {
  const ir::Node& n = ctx.node;
  if (ctx.output_grads[0].empty() && ctx.output_grads[1].empty()) return Status::Ok();
  if (const ir::Attribute* a = n.attribute("layout"); a && a->i != 0) return not_implemented("RNN's gradient with layout 1");
  if (n.attribute("clip")) return not_implemented("RNN's gradient with clip");
  if (const ir::Attribute* a = n.attribute("activations")) {
    for (const std::string& act : a->strings)
      if (act != "Tanh" && act != "Relu") return not_implemented("RNN's gradient with the activation ", act);
  }
  std::vector<std::string> inputs;
  for (size_t i = 0; i < 6; ++i) inputs.push_back(i < n.inputs.size() ? n.inputs[i] : "");
  for (size_t k = 0; k < 2; ++k) inputs.push_back(ctx.output_grads[k]);
  const std::vector<std::string> grads = ctx.emit.node("RNNGrad", inputs, n.attributes, 5, "ai.onyx.training");
  const size_t source[] = {0, 1, 2, 3, 5};
  for (size_t k = 0; k < 5; ++k)
    if (source[k] < n.inputs.size() && !n.inputs[source[k]].empty() && ctx.needs_grad[source[k]])
      ctx.input_grads[source[k]] = grads[k];
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "RNN", rnn_gradient);
}  // namespace onyx::training
