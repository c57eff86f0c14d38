// skip_layer_norm_fusion (extended): the residual Add feeding a LayerNormalization over the
// last dim,
//   S = Add(input, skip); Y = LayerNormalization(S, gamma, beta)
// becomes one com.microsoft SkipLayerNormalization(input, skip, gamma, beta) -> Y. When the
// input is itself Add(M, bias) with a 1-D constant bias (the projection before the residual)
// read by nothing else, that Add joins as the fused node's bias input. When S has other
// readers (the next residual, as in BERT) or is a graph output, the fused node writes it as
// its input_skip_bias_sum output; LayerNormalization's Mean and InvStdDev map to its mean and
// inv_std_var. Conditions: gamma and beta 1-D of a known length H (the bias too); one float
// type throughout; stash_type float. Shapes need not be known: the kernel broadcasts input
// and skip as the Adds would (the input is the operand statically known to have S's shape,
// when one is).
#include "optimizer/fusions/fusion_util.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

bool same_dim(const Dim& a, const Dim& b) {
  if (a.value || b.value) return a.value && b.value && *a.value == *b.value;
  return !a.symbol.empty() && a.symbol == b.symbol;
}

const SymbolicShape* shape_of(const GraphIndex& g, const std::string& name) {
  const ir::TypeInfo* t = g.type(name);
  return t && t->kind == ir::TypeInfo::Kind::kTensor && t->shape.has_rank ? &t->shape : nullptr;
}

// True when `v`'s dims, after dropping leading 1s, equal the trailing dims of `full`; with
// `exact`, when they equal all of `full`.
bool fits(const SymbolicShape* v, const SymbolicShape& full, bool exact) {
  if (!v) return false;
  size_t lead = 0;
  if (!exact)
    while (lead + 1 < v->dims.size() && v->dims[lead].value && *v->dims[lead].value == 1) ++lead;
  const size_t k = v->dims.size() - lead;
  if (k == 0 || k > full.dims.size() || (exact && k != full.dims.size())) return false;
  for (size_t i = 0; i < k; ++i)
    if (!same_dim(v->dims[lead + i], full.dims[full.dims.size() - k + i])) return false;
  return true;
}

bool is_vector_of(const GraphIndex& g, const std::string& name, int64_t n, DataType t) {
  const SymbolicShape* s = shape_of(g, name);
  return s && s->dims.size() == 1 && s->dims[0].value && *s->dims[0].value == n && g.elem_type(name) == t;
}

class SkipLayerNormFusion final : public RulePass {
 public:
  std::string name() const override { return "skip_layer_norm_fusion"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext&) const override {
    const ir::Node& ln = g.node(i);
    if (!is_op(ln, "LayerNormalization") || ln.inputs.size() < 2 || ln.outputs.empty() || ln.outputs.size() > 3)
      return std::nullopt;
    if (const ir::Attribute* stash = ln.attribute("stash_type"); stash && stash->i != 1) return std::nullopt;
    const std::string& s = ln.inputs[0];
    const DataType type = g.elem_type(s);
    if (!fusable_float(type)) return std::nullopt;
    if (const ir::Attribute* axis = ln.attribute("axis"); axis && axis->i != -1) {
      const auto rank = g.rank(s);
      if (!rank || axis->i != *rank - 1) return std::nullopt;
    }
    const std::string& gamma = ln.inputs[1];
    const std::string beta = ln.inputs.size() > 2 ? ln.inputs[2] : "";
    const SymbolicShape* gamma_shape = shape_of(g, gamma);
    if (!gamma_shape || gamma_shape->dims.size() != 1 || !gamma_shape->dims[0].value) return std::nullopt;
    const int64_t h = *gamma_shape->dims[0].value;
    if (!is_vector_of(g, gamma, h, type) || (!beta.empty() && !is_vector_of(g, beta, h, type))) return std::nullopt;

    auto add = g.producer(s);
    if (!add || !is_op(g.node(*add), "Add") || g.node(*add).inputs.size() != 2) return std::nullopt;
    const ir::Node& residual = g.node(*add);
    if (g.elem_type(residual.inputs[0]) != type || g.elem_type(residual.inputs[1]) != type) return std::nullopt;
    const SymbolicShape* s_shape = shape_of(g, s);
    const bool second_is_full = s_shape && !fits(shape_of(g, residual.inputs[0]), *s_shape, true) &&
                                fits(shape_of(g, residual.inputs[1]), *s_shape, true);
    std::string input = residual.inputs[second_is_full ? 1 : 0];
    std::string skip = residual.inputs[second_is_full ? 0 : 1];

    Patch p;
    p.remove_nodes = {*add, i};
    // The projection bias: `v` = Add(m, c) with c a 1-D constant of length h, v read only here.
    auto bias_of = [&](const std::string& v) -> std::optional<std::pair<std::string, size_t>> {
      auto b = g.producer(v);
      if (!b || !is_op(g.node(*b), "Add") || !g.single_use(v) || g.node(*b).inputs.size() != 2) return std::nullopt;
      for (int k = 0; k < 2; ++k) {
        const std::string& m = g.node(*b).inputs[size_t(k)];
        const std::string& c = g.node(*b).inputs[size_t(1 - k)];
        if (g.constant(c) && is_vector_of(g, c, h, type) && g.elem_type(m) == type) return std::make_pair(m, *b);
      }
      return std::nullopt;
    };
    std::string bias;
    auto found = bias_of(input);
    if (!found && (found = bias_of(skip))) std::swap(input, skip);
    if (found) {
      bias = g.node(found->second).inputs[0] == found->first ? g.node(found->second).inputs[1]
                                                             : g.node(found->second).inputs[0];
      input = found->first;
      p.remove_nodes.push_back(found->second);
    }

    ir::Node fused;
    fused.name = g.fresh_name(ln.name.empty() ? "SkipLayerNormalization" : ln.name + "_skip");
    fused.op_type = "SkipLayerNormalization";
    fused.domain = kMicrosoftDomain;
    fused.inputs = {input, skip, gamma, beta, bias};
    while (!fused.inputs.empty() && fused.inputs.back().empty()) fused.inputs.pop_back();
    fused.outputs = {ln.outputs[0], ln.outputs.size() > 1 ? ln.outputs[1] : "", ln.outputs.size() > 2 ? ln.outputs[2] : "",
                     g.single_use(s) ? "" : s};
    while (!fused.outputs.empty() && fused.outputs.back().empty()) fused.outputs.pop_back();
    ir::Attribute eps;
    eps.name = "epsilon";
    eps.type = ir::Attribute::Type::kFloat;
    const ir::Attribute* ln_eps = ln.attribute("epsilon");
    eps.f = ln_eps ? ln_eps->f : 1e-5f;
    fused.attributes.emplace("epsilon", eps);
    p.add_nodes.push_back(std::move(fused));
    p.opset_imports[kMicrosoftDomain] = 1;
    return p;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kFuse, 30, SkipLayerNormFusion);

}  // namespace onyx::optimizer
