// PythonOp (ai.onyx.torch, a custom torch.autograd.Function kept whole by ORTModule's export):
// its inputs' gradients come from the Function's own backward, run by one PythonOpGrad node
// that reads the forward call's context (output 0) and the gradients of outputs 1.. ("" where
// none flows). Only floating-point inputs get gradients; PythonOpGrad's outputs are those of
// the inputs that need one, listed in its input_indices attribute, with their element types
// and ranks (-1: unknown) for static inference. A PythonOp exported without gradients
// (training = 0: its calls keep no context) is refused.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status python_op_gradient(GradientContext& ctx) {
  const ir::Node& n = ctx.node;
  const ir::Attribute* name_attr = n.attribute("name");
  const std::string name = name_attr ? name_attr->s : "?";
  std::vector<int64_t> indices, types, ranks;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (!ctx.needs_grad[i] || n.inputs[i].empty()) continue;
    const ir::TypeInfo& t = ctx.emit.type_of(n.inputs[i]);
    if (!is_float_type(t.elem_type)) continue;
    indices.push_back(int64_t(i));
    types.push_back(int64_t(t.elem_type));
    ranks.push_back(t.shape.has_rank ? int64_t(t.shape.dims.size()) : -1);
  }
  if (indices.empty()) return Status::Ok();
  std::vector<std::string> inputs{ctx.output(0)};
  bool any_grad = false;
  for (size_t k = 1; k < n.outputs.size(); ++k) {
    inputs.push_back(ctx.output_grads[k]);
    any_grad = any_grad || !ctx.output_grads[k].empty();
  }
  if (!any_grad) return Status::Ok();
  const ir::Attribute* training = n.attribute("training");
  if (!training || training->i == 0)
    return not_implemented("the custom torch.autograd.Function ", name,
                           " was exported for inference (PythonOp training = 0): its calls keep no context for a "
                           "backward");
  std::map<std::string, ir::Attribute> attributes{{"input_indices", GradientEmitter::ints_attr("input_indices", indices)},
                                                  {"output_types", GradientEmitter::ints_attr("output_types", types)},
                                                  {"output_ranks", GradientEmitter::ints_attr("output_ranks", ranks)}};
  if (name_attr) attributes["name"] = *name_attr;
  const std::vector<std::string> grads =
      ctx.emit.node("PythonOpGrad", inputs, std::move(attributes), indices.size(), "ai.onyx.torch");
  for (size_t k = 0; k < indices.size(); ++k) ctx.input_grads[size_t(indices[k])] = grads[k];
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("ai.onyx.torch", "PythonOp", python_op_gradient);
}  // namespace onyx::training
