// identity_elimination (basic): Identity nodes go; their readers read the input directly.
#include "optimizer/pass.h"
#include "optimizer/simplify/bypass.h"

namespace onyx::optimizer {
namespace {

class IdentityElimination final : public RulePass {
 public:
  std::string name() const override { return "identity_elimination"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext&) const override {
    const ir::Node& n = g.node(i);
    if (n.op_type != "Identity" || !n.domain.empty() || n.inputs.size() != 1 || n.outputs.size() != 1) return std::nullopt;
    return bypass_node(g, i, n.inputs[0], n.outputs[0]);
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kSimplify, 40, IdentityElimination);

}  // namespace onyx::optimizer
