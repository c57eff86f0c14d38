// constant_to_initializer (basic): a Constant node becomes an initializer of the same name
// (every attribute form: value, value_float(s), value_int(s), value_string(s), sparse_value),
// so constant folding and the fusions see its value.
#include "optimizer/evaluate.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

class ConstantToInitializer final : public RulePass {
 public:
  std::string name() const override { return "constant_to_initializer"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext& ctx) const override {
    const ir::Node& n = g.node(i);
    if (n.op_type != "Constant" || !n.domain.empty() || !n.inputs.empty() || n.outputs.size() != 1 ||
        n.outputs[0].empty())
      return std::nullopt;
    auto values = evaluate_node(n, ctx.opset(n), {});
    if (!values.ok() || !(*values)[0].is_tensor()) return std::nullopt;  // the planner reports it
    Patch p;
    p.remove_nodes = {i};
    p.add_initializers.emplace_back(n.outputs[0], (*values)[0].tensor());
    return p;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kSimplify, 10, ConstantToInitializer);

}  // namespace onyx::optimizer
