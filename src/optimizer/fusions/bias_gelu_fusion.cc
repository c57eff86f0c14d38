// bias_gelu_fusion (extended): the bias Add of a projection feeding a fused GELU,
//   Gelu(Add(X, bias))      -> com.microsoft BiasGelu(X, bias)
//   FastGelu(Add(X, bias))  -> com.microsoft FastGelu(X, bias)
// where bias is a 1-D constant, X and bias have one float type, and the Add's output has no
// other reader. X's shape need not be known: the kernels broadcast X's last dim against the
// bias as the Add would. Runs after gelu_fusion/fast_gelu_fusion
// in the same phase (the fixpoint brings them round again).
#include "optimizer/fusions/fusion_util.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

class BiasGeluFusion final : public RulePass {
 public:
  std::string name() const override { return "bias_gelu_fusion"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext&) const override {
    const ir::Node& gelu = g.node(i);
    const bool erf_form = gelu.op_type == "Gelu" && gelu.domain == kMicrosoftDomain;
    const bool tanh_form = gelu.op_type == "FastGelu" && gelu.domain == kMicrosoftDomain;
    if (!(erf_form || tanh_form) || gelu.inputs.size() != 1 || gelu.outputs.size() != 1) return std::nullopt;
    const std::string& a = gelu.inputs[0];
    auto add = g.producer(a);
    if (!add || !is_op(g.node(*add), "Add") || g.node(*add).inputs.size() != 2 || !g.single_use(a)) return std::nullopt;
    const ir::Node& n = g.node(*add);
    const DataType type = g.elem_type(a);
    if (!fusable_float(type)) return std::nullopt;
    for (int k = 0; k < 2; ++k) {
      const std::string& x = n.inputs[size_t(k)];
      const std::string& bias = n.inputs[size_t(1 - k)];
      const Tensor* b = g.constant(bias);
      if (!b || b->rank() != 1 || b->dtype() != type || g.elem_type(x) != type) continue;
      Patch p;
      p.remove_nodes = {*add, i};
      ir::Node fused;
      fused.name = g.fresh_name(gelu.name.empty() ? "BiasGelu" : gelu.name + "_bias");
      fused.op_type = erf_form ? "BiasGelu" : "FastGelu";
      fused.domain = kMicrosoftDomain;
      fused.inputs = {x, bias};
      fused.outputs = gelu.outputs;
      p.add_nodes.push_back(std::move(fused));
      p.opset_imports[kMicrosoftDomain] = 1;
      return p;
    }
    return std::nullopt;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kFuse, 20, BiasGeluFusion);

}  // namespace onyx::optimizer
