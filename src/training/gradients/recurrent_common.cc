#include "training/gradients/recurrent_common.h"

namespace onyx::training {

Status refuse_layout_and_clip(const ir::Node& n, const char* op) {
  if (const ir::Attribute* a = n.attribute("layout"); a && a->i != 0)
    return not_implemented(op, "'s gradient with layout 1");
  if (n.attribute("clip")) return not_implemented(op, "'s gradient with clip");
  return Status::Ok();
}

void emit_recurrent_gradient(GradientContext& ctx, const char* grad_op, size_t forward_inputs, size_t outputs,
                             const std::vector<size_t>& sources) {
  const ir::Node& n = ctx.node;
  std::vector<std::string> inputs;
  for (size_t i = 0; i < forward_inputs; ++i) inputs.push_back(i < n.inputs.size() ? n.inputs[i] : "");
  for (size_t k = 0; k < outputs; ++k) inputs.push_back(ctx.output_grads[k]);
  const std::vector<std::string> grads = ctx.emit.node(grad_op, inputs, n.attributes, sources.size(), "ai.onyx.training");
  for (size_t k = 0; k < sources.size(); ++k)
    if (sources[k] < n.inputs.size() && !n.inputs[sources[k]].empty() && ctx.needs_grad[sources[k]])
      ctx.input_grads[sources[k]] = grads[k];
}

}  // namespace onyx::training
