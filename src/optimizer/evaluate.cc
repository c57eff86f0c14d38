#include "optimizer/evaluate.h"

#include "core/guard.h"
#include "kernels/kernel.h"

namespace onyx::optimizer {

Result<std::vector<Value>> evaluate_node(const ir::Node& node, int64_t opset, const std::vector<const Tensor*>& inputs) {
  if (inputs.size() != node.inputs.size())
    return error(StatusCode::kInternal, "evaluate_node: ", inputs.size(), " inputs for ", node.inputs.size());
  const KernelDef* def = KernelRegistry::global().find("CPU", node.domain, node.op_type, opset);
  if (!def) return not_implemented("no CPU kernel for ", node.label(), " at opset ", opset);
  std::unique_ptr<Kernel> kernel = def->factory();
  KernelInfo info(node, opset, inputs, [](const ir::Graph&) -> Result<std::shared_ptr<const SubgraphPlan>> {
    return not_implemented("subgraphs are not evaluated at optimisation time");
  });
  ONYX_RETURN_IF_ERROR(guarded("kernel prepare", [&] { return kernel->prepare(info); }));
  std::vector<Value> in_values(inputs.size());
  std::vector<const Value*> in_ptrs(inputs.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) continue;
    in_values[i] = Value(*inputs[i]);
    in_ptrs[i] = &in_values[i];
  }
  std::vector<Value> out_values(node.outputs.size());
  std::vector<Value*> out_ptrs(node.outputs.size(), nullptr);
  for (size_t i = 0; i < node.outputs.size(); ++i)
    if (!node.outputs[i].empty()) out_ptrs[i] = &out_values[i];
  KernelContext ctx(in_ptrs, out_ptrs, nullptr);
  ONYX_RETURN_IF_ERROR(guarded("kernel", [&] { return kernel->compute(ctx); }));
  return out_values;
}

}  // namespace onyx::optimizer
