// cast_elimination (basic): a Cast to the element type its input already has, or a CastLike
// whose input and target share an element type, passes its input through and goes.
#include "optimizer/pass.h"
#include "optimizer/simplify/bypass.h"

namespace onyx::optimizer {
namespace {

class CastElimination final : public RulePass {
 public:
  std::string name() const override { return "cast_elimination"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext&) const override {
    const ir::Node& n = g.node(i);
    if (!n.domain.empty() || n.inputs.empty() || n.outputs.size() != 1) return std::nullopt;
    const DataType from = g.elem_type(n.inputs[0]);
    if (from == DataType::kUndefined) return std::nullopt;
    if (n.op_type == "Cast") {
      const ir::Attribute* to = n.attribute("to");
      if (!to || DataType(to->i) != from) return std::nullopt;
    } else if (n.op_type == "CastLike") {
      if (n.inputs.size() != 2 || g.elem_type(n.inputs[1]) != from) return std::nullopt;
    } else {
      return std::nullopt;
    }
    return bypass_node(g, i, n.inputs[0], n.outputs[0]);
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kSimplify, 42, CastElimination);

}  // namespace onyx::optimizer
