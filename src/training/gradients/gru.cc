// GRU: the gradients of X, W, R, B and initial_h from one GRUGrad node (onyx's kernel,
// ai.onyx.training: backpropagation through time over the forward run again; both
// linear_before_reset forms), fed the GRU's inputs and the gradients of Y and Y_h that flow
// ("" where none). Default activations, no clip and layout 0 only; the rest is refused here.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status gru_gradient(GradientContext& ctx) {
  const ir::Node& n = ctx.node;
  if (ctx.output_grads[0].empty() && ctx.output_grads[1].empty()) return Status::Ok();
  if (const ir::Attribute* a = n.attribute("layout"); a && a->i != 0) return not_implemented("GRU's gradient with layout 1");
  if (n.attribute("clip")) return not_implemented("GRU's gradient with clip");
  if (const ir::Attribute* a = n.attribute("activations")) {
    for (size_t i = 0; i < a->strings.size(); ++i)
      if (a->strings[i] != (i % 2 == 0 ? "Sigmoid" : "Tanh"))
        return not_implemented("GRU's gradient with activations other than Sigmoid, Tanh");
  }
  std::vector<std::string> inputs;
  for (size_t i = 0; i < 6; ++i) inputs.push_back(i < n.inputs.size() ? n.inputs[i] : "");
  for (size_t k = 0; k < 2; ++k) inputs.push_back(ctx.output_grads[k]);
  const std::vector<std::string> grads = ctx.emit.node("GRUGrad", inputs, n.attributes, 5, "ai.onyx.training");
  const size_t source[] = {0, 1, 2, 3, 5};
  for (size_t k = 0; k < 5; ++k)
    if (source[k] < n.inputs.size() && !n.inputs[source[k]].empty() && ctx.needs_grad[source[k]])
      ctx.input_grads[source[k]] = grads[k];
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "GRU", gru_gradient);
}  // namespace onyx::training
