// AttentionCore (ai.onyx.training; the training graph's fused attention): one
// AttentionCoreGrad node gives the gradients of its inputs (query, key and value, or the one
// packed input) from dY, those inputs and the probabilities the forward kept (output 1). No
// gradient flows into those probabilities themselves: nothing outside the gradient reads them.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status attention_core_gradient(GradientContext& ctx) {
  if (!ctx.output_grads[1].empty())
    return not_implemented("AttentionCore: a gradient flowing into its probabilities (output 1)");
  const size_t inputs = ctx.node.inputs.size();
  bool needed = false;
  for (size_t i = 0; i < inputs; ++i) needed = needed || ctx.needs_grad[i];
  if (ctx.output_grads[0].empty() || !needed) return Status::Ok();
  std::map<std::string, ir::Attribute> attributes;
  for (const char* name : {"num_heads", "scale"})
    if (const ir::Attribute* a = ctx.node.attribute(name)) attributes.emplace(name, *a);
  std::vector<std::string> feeds = {ctx.output_grads[0]};
  feeds.insert(feeds.end(), ctx.node.inputs.begin(), ctx.node.inputs.end());
  feeds.push_back(ctx.output(1));
  const std::vector<std::string> grads =
      ctx.emit.node("AttentionCoreGrad", feeds, std::move(attributes), inputs, "ai.onyx.training");
  for (size_t i = 0; i < inputs; ++i)
    if (ctx.needs_grad[i]) ctx.input_grads[i] = grads[i];
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("ai.onyx.training", "AttentionCore", attention_core_gradient);
}  // namespace onyx::training
