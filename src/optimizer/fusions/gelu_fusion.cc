// gelu_fusion (extended): the erf form of GELU as exporters write it,
//   x * 0.5 * (1 + Erf(x / sqrt(2)))   (Div by ~1.4142, or Mul by ~0.7071; the three Muls of
//                                       x, 0.5 and the Add in any grouping and order)
// becomes one com.microsoft Gelu(x). Every intermediate must have that single reader; x must
// be float32, float16 or double.
#include "optimizer/fusions/fusion_util.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

class GeluFusion final : public RulePass {
 public:
  std::string name() const override { return "gelu_fusion"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext&) const override {
    const ir::Node& erf = g.node(i);
    if (!is_op(erf, "Erf") || erf.inputs.size() != 1 || erf.outputs.size() != 1) return std::nullopt;
    // x / sqrt(2) or x * (1 / sqrt(2))
    auto scale = g.producer(erf.inputs[0]);
    if (!scale || !g.single_use(erf.inputs[0])) return std::nullopt;
    const ir::Node& s = g.node(*scale);
    std::string x;
    if (is_op(s, "Div") && s.inputs.size() == 2) {
      x = s.inputs[0];
      if (!is_scalar_near(g, s.inputs[1], std::sqrt(2.0), g.rank(x))) return std::nullopt;
    } else if (is_op(s, "Mul") && s.inputs.size() == 2) {
      const int k = is_scalar_near(g, s.inputs[1], std::sqrt(0.5), g.rank(s.inputs[0])) ? 0 : 1;
      x = s.inputs[size_t(k)];
      if (!is_scalar_near(g, s.inputs[size_t(1 - k)], std::sqrt(0.5), g.rank(x))) return std::nullopt;
    } else {
      return std::nullopt;
    }
    if (!fusable_float(g.elem_type(x))) return std::nullopt;
    // 1 + erf
    auto add = sole_consumer(g, erf.outputs[0]);
    if (!add || !is_op(g.node(*add), "Add") || g.node(*add).outputs.size() != 1) return std::nullopt;
    auto one = other_input(g.node(*add), erf.outputs[0]);
    if (!one || !is_scalar_near(g, *one, 1.0, g.rank(x))) return std::nullopt;
    auto product = match_half_product(g, g.node(*add).outputs[0], x);
    if (!product) return std::nullopt;

    Patch p;
    p.remove_nodes = {*scale, i, *add};
    p.remove_nodes.insert(p.remove_nodes.end(), product->nodes.begin(), product->nodes.end());
    ir::Node gelu;
    gelu.name = g.fresh_name(erf.name.empty() ? "Gelu" : erf.name + "_gelu");
    gelu.op_type = "Gelu";
    gelu.domain = kMicrosoftDomain;
    gelu.inputs = {x};
    gelu.outputs = {product->output};
    p.add_nodes.push_back(std::move(gelu));
    p.opset_imports[kMicrosoftDomain] = 1;
    return p;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kFuse, 10, GeluFusion);

}  // namespace onyx::optimizer
