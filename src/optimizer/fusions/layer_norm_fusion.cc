// layer_norm_fusion (extended): layer normalisation over the last dim written out, as
// exporters targeting opsets before 17 (which lack LayerNormalization) do:
//   m = ReduceMean(x, [-1]); d = Sub(x, m); v = ReduceMean(Pow(d, 2) | Mul(d, d), [-1])
//   y = Add(Mul(Div(d, Sqrt(Add(v, eps))), gamma), beta)      (the beta Add optional)
// When x is a residual Add, the whole becomes one com.microsoft SkipLayerNormalization (as
// skip_layer_norm_fusion builds it: the projection bias joins, x stays as output 3 when read
// elsewhere); otherwise, in a model importing opset 17 or later, one LayerNormalization.
// Conditions: ReduceMean over the last axis only with keepdims; eps a constant scalar; gamma
// and beta 1-D of a known length H (x's last dim when known); one float type; every
// intermediate read only by the pattern.
#include "optimizer/fusions/fusion_util.h"
#include "optimizer/fusions/skip_layer_norm.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

// True when node `n` is a ReduceMean over the last axis of `x` only, keeping dims.
bool mean_over_last(const GraphIndex& g, const ir::Node& n, int64_t opset, const std::string& x) {
  if (!is_op(n, "ReduceMean") || n.inputs.empty() || n.inputs[0] != x || n.outputs.size() != 1) return false;
  if (const ir::Attribute* k = n.attribute("keepdims"); k && k->i != 1) return false;
  std::vector<int64_t> axes;
  if (opset >= 18) {
    const Tensor* a = n.inputs.size() > 1 && !n.inputs[1].empty() ? g.constant(n.inputs[1]) : nullptr;
    if (!a) return false;
    axes = a->to_int64_vector();
  } else if (const ir::Attribute* a = n.attribute("axes")) {
    axes = a->ints;
  }
  if (axes.size() != 1) return false;
  const auto rank = g.rank(x);
  return axes[0] == -1 || (rank && axes[0] == *rank - 1);
}

class LayerNormFusion final : public RulePass {
 public:
  std::string name() const override { return "layer_norm_fusion"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext& ctx) const override {
    const ir::Node& mean = g.node(i);
    if (!is_op(mean, "ReduceMean") || mean.inputs.empty()) return std::nullopt;
    const std::string& x = mean.inputs[0];
    const int64_t opset = ctx.opset(mean);
    if (!mean_over_last(g, mean, opset, x)) return std::nullopt;
    const DataType type = g.elem_type(x);
    if (!fusable_float(type)) return std::nullopt;
    std::vector<size_t> nodes = {i};

    // d = x - mean, read by the square and the Div only.
    auto sub = sole_consumer(g, mean.outputs[0]);
    if (!sub || !is_op(g.node(*sub), "Sub") || g.node(*sub).inputs.size() != 2 || g.node(*sub).inputs[0] != x ||
        g.node(*sub).inputs[1] != mean.outputs[0])
      return std::nullopt;
    nodes.push_back(*sub);
    const std::string& d = g.node(*sub).outputs[0];
    if (g.is_graph_output(d) || g.is_captured(d) || g.consumers(d).size() != 2) return std::nullopt;
    std::optional<size_t> square, div;
    for (size_t c : g.consumers(d)) {
      const ir::Node& n = g.node(c);
      if (is_op(n, "Div") && n.inputs.size() == 2 && n.inputs[0] == d && n.inputs[1] != d) {
        div = c;
      } else if (is_op(n, "Mul") && n.inputs.size() == 2 && n.inputs[0] == d && n.inputs[1] == d) {
        square = c;
      } else if (is_op(n, "Pow") && n.inputs.size() == 2 && n.inputs[0] == d) {
        const Tensor* e = g.constant(n.inputs[1]);
        if (e && e->numel() == 1 && e->rank() == 0 && e->get_double(0) == 2.0) square = c;
      }
    }
    if (!square || !div) return std::nullopt;
    nodes.push_back(*square);
    auto var = sole_consumer(g, g.node(*square).outputs[0]);
    if (!var || !mean_over_last(g, g.node(*var), opset, g.node(*square).outputs[0])) return std::nullopt;
    nodes.push_back(*var);
    auto add_eps = sole_consumer(g, g.node(*var).outputs[0]);
    if (!add_eps || !is_op(g.node(*add_eps), "Add")) return std::nullopt;
    auto eps_name = other_input(g.node(*add_eps), g.node(*var).outputs[0]);
    const std::optional<double> eps = eps_name ? g.scalar(*eps_name) : std::nullopt;
    if (!eps || *eps < 0 || g.constant(*eps_name)->rank() > 0) return std::nullopt;
    nodes.push_back(*add_eps);
    auto sqrt = sole_consumer(g, g.node(*add_eps).outputs[0]);
    if (!sqrt || !is_op(g.node(*sqrt), "Sqrt")) return std::nullopt;
    nodes.push_back(*sqrt);
    if (sole_consumer(g, g.node(*sqrt).outputs[0]) != div || g.node(*div).inputs[1] != g.node(*sqrt).outputs[0])
      return std::nullopt;
    nodes.push_back(*div);

    // y = normalised * gamma (+ beta)
    auto mul = sole_consumer(g, g.node(*div).outputs[0]);
    if (!mul || !is_op(g.node(*mul), "Mul")) return std::nullopt;
    auto gamma = other_input(g.node(*mul), g.node(*div).outputs[0]);
    const SymbolicShape* gamma_shape = gamma ? skip_ln::shape_of(g, *gamma) : nullptr;
    if (!gamma_shape || gamma_shape->dims.size() != 1 || !gamma_shape->dims[0].value) return std::nullopt;
    const int64_t h = *gamma_shape->dims[0].value;
    if (!skip_ln::is_vector_of(g, *gamma, h, type)) return std::nullopt;
    if (const auto last = g.last_dim(x); last && *last != h) return std::nullopt;
    nodes.push_back(*mul);
    std::string y = g.node(*mul).outputs[0], beta;
    if (auto add = sole_consumer(g, y); add && is_op(g.node(*add), "Add")) {
      auto b = other_input(g.node(*add), y);
      if (b && skip_ln::is_vector_of(g, *b, h, type)) {
        beta = *b;
        y = g.node(*add).outputs[0];
        nodes.push_back(*add);
      }
    }

    skip_ln::Norm norm;
    norm.s = x;
    norm.gamma = *gamma;
    norm.beta = beta;
    norm.h = h;
    norm.type = type;
    norm.epsilon = float(*eps);
    norm.y = y;
    norm.remove = nodes;
    norm.name = mean.name;
    if (auto fused = skip_ln::fuse(g, norm)) return fused;
    if (ctx.model.opset("") < 17) return std::nullopt;
    Patch p;
    p.remove_nodes = nodes;
    ir::Node ln;
    ln.name = g.fresh_name(mean.name.empty() ? "LayerNormalization" : mean.name + "_layer_norm");
    ln.op_type = "LayerNormalization";
    ln.inputs = {x, *gamma};
    if (!beta.empty()) ln.inputs.push_back(beta);
    ln.outputs = {y};
    ir::Attribute axis;
    axis.name = "axis";
    axis.type = ir::Attribute::Type::kInt;
    axis.i = -1;
    ln.attributes.emplace(axis.name, axis);
    ir::Attribute epsilon;
    epsilon.name = "epsilon";
    epsilon.type = ir::Attribute::Type::kFloat;
    epsilon.f = float(*eps);
    ln.attributes.emplace(epsilon.name, epsilon);
    p.add_nodes.push_back(std::move(ln));
    return p;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kFuse, 25, LayerNormFusion);

}  // namespace onyx::optimizer
