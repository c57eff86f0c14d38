// dropout_elimination (basic): a Dropout that runs in inference mode passes its input through;
// it goes when its mask output is absent or unused. Inference mode: opset 7-11 always;
// opset >= 12 when training_mode is omitted or a constant false (or the ratio a constant 0);
// opset < 7 when is_test is 1 (its default, 0, means training there).
#include "optimizer/pass.h"
#include "optimizer/simplify/bypass.h"

namespace onyx::optimizer {
namespace {

class DropoutElimination final : public RulePass {
 public:
  std::string name() const override { return "dropout_elimination"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext& ctx) const override {
    const ir::Node& n = g.node(i);
    if (n.op_type != "Dropout" || !n.domain.empty() || n.inputs.empty() || n.outputs.empty()) return std::nullopt;
    if (n.outputs.size() > 1 && !n.outputs[1].empty() && !g.unused(n.outputs[1])) return std::nullopt;
    const int64_t opset = ctx.opset(n);
    if (opset < 7) {
      const ir::Attribute* is_test = n.attribute("is_test");
      if (!is_test || is_test->i == 0) return std::nullopt;
    } else if (opset >= 12 && n.inputs.size() > 2 && !n.inputs[2].empty()) {
      const Tensor* training = g.constant(n.inputs[2]);
      const bool off = training && training->numel() == 1 && training->dtype() == DataType::kBool && !*training->data<bool>();
      const std::optional<double> ratio = n.inputs[1].empty() ? std::nullopt : g.scalar(n.inputs[1]);
      if (!off && !(ratio && *ratio == 0.0)) return std::nullopt;
    }
    return bypass_node(g, i, n.inputs[0], n.outputs[0]);
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kSimplify, 41, DropoutElimination);

}  // namespace onyx::optimizer
