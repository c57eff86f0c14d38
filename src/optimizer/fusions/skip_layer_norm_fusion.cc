// skip_layer_norm_fusion (extended): the residual Add feeding a LayerNormalization over the
// last dim,
//   S = Add(input, skip); Y = LayerNormalization(S, gamma, beta)
// becomes one com.microsoft SkipLayerNormalization(input, skip, gamma, beta) -> Y. When the
// input is itself Add(M, bias) with a 1-D constant bias over the last dim (the projection
// before the residual), that Add joins as the fused node's bias input. When S has other
// readers (the next residual, as in BERT) or is a graph output, the fused node writes it as
// its input_skip_bias_sum output; LayerNormalization's Mean and InvStdDev map to its mean and
// inv_std_var. Conditions: static shapes show `input` (and M) with S's shape and `skip` with
// S's trailing dims; gamma and beta 1-D with S's last dim; one float type throughout;
// stash_type float.
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
    const SymbolicShape* s_shape = shape_of(g, s);
    const auto h = g.last_dim(s);
    const DataType type = g.elem_type(s);
    if (!s_shape || s_shape->dims.empty() || !h || !fusable_float(type)) return std::nullopt;
    const int64_t rank = int64_t(s_shape->dims.size());
    const ir::Attribute* axis = ln.attribute("axis");
    if (axis && axis->i != -1 && axis->i != rank - 1) return std::nullopt;
    const std::string& gamma = ln.inputs[1];
    const std::string beta = ln.inputs.size() > 2 ? ln.inputs[2] : "";
    if (!is_vector_of(g, gamma, *h, type) || (!beta.empty() && !is_vector_of(g, beta, *h, type))) return std::nullopt;

    auto add = g.producer(s);
    if (!add || !is_op(g.node(*add), "Add") || g.node(*add).inputs.size() != 2) return std::nullopt;
    const ir::Node& residual = g.node(*add);
    std::string input, skip;
    for (int k = 0; k < 2 && input.empty(); ++k) {
      const std::string& a = residual.inputs[size_t(k)];
      const std::string& b = residual.inputs[size_t(1 - k)];
      if (fits(shape_of(g, a), *s_shape, true) && fits(shape_of(g, b), *s_shape, false) && g.elem_type(a) == type &&
          g.elem_type(b) == type) {
        input = a;
        skip = b;
      }
    }
    if (input.empty()) return std::nullopt;

    Patch p;
    p.remove_nodes = {*add, i};
    std::string bias;
    if (auto b = g.producer(input); b && is_op(g.node(*b), "Add") && g.single_use(input) && g.node(*b).inputs.size() == 2) {
      const ir::Node& bias_add = g.node(*b);
      for (int k = 0; k < 2 && bias.empty(); ++k) {
        const std::string& m = bias_add.inputs[size_t(k)];
        const std::string& c = bias_add.inputs[size_t(1 - k)];
        if (g.constant(c) && is_vector_of(g, c, *h, type) && fits(shape_of(g, m), *s_shape, true) &&
            g.elem_type(m) == type) {
          bias = c;
          input = m;
          p.remove_nodes.push_back(*b);
        }
      }
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
