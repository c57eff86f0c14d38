// Building a com.microsoft SkipLayerNormalization, shared by skip_layer_norm_fusion (from a
// LayerNormalization node) and layer_norm_fusion (from the normalisation written out).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "optimizer/fusions/fusion_util.h"
#include "optimizer/patch.h"

namespace onyx::optimizer::skip_ln {

inline bool same_dim(const Dim& a, const Dim& b) {
  if (a.value || b.value) return a.value && b.value && *a.value == *b.value;
  return !a.symbol.empty() && a.symbol == b.symbol;
}

inline const SymbolicShape* shape_of(const GraphIndex& g, const std::string& name) {
  const ir::TypeInfo* t = g.type(name);
  return t && t->kind == ir::TypeInfo::Kind::kTensor && t->shape.has_rank ? &t->shape : nullptr;
}

// True when `v`'s dims, after dropping leading 1s, equal the trailing dims of `full`; with
// `exact`, when they equal all of `full`.
inline bool fits(const SymbolicShape* v, const SymbolicShape& full, bool exact) {
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

inline bool is_vector_of(const GraphIndex& g, const std::string& name, int64_t n, DataType t) {
  const SymbolicShape* s = shape_of(g, name);
  return s && s->dims.size() == 1 && s->dims[0].value && *s->dims[0].value == n && g.elem_type(name) == t;
}

// What is normalised: S over its last dim with gamma and beta (1-D, length h, `type`), and
// what the normalisation writes; `remove` are the nodes computing it from S.
struct Norm {
  std::string s, gamma, beta;  // beta may be empty
  int64_t h = 0;
  DataType type = DataType::kUndefined;
  float epsilon = 1e-5f;
  std::string y, mean, inv_std;  // mean and inv_std may be empty
  std::vector<size_t> remove;
  std::string name;  // base for the fused node's name
};

// The patch replacing `norm` and the residual Add producing S (and the projection bias Add
// before it, when there is one) by one SkipLayerNormalization; nullopt when S is not an Add of
// two values of norm.type. S stays defined (output 3) when anything else reads it.
inline std::optional<Patch> fuse(const GraphIndex& g, const Norm& norm) {
  const std::string& s = norm.s;
  const std::string& gamma = norm.gamma;
  const std::string& beta = norm.beta;
  const int64_t h = norm.h;
  const DataType type = norm.type;
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
  p.remove_nodes = norm.remove;
  p.remove_nodes.push_back(*add);
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
    const ir::Node& bias_add = g.node(found->second);
    bias = bias_add.inputs[0] == found->first ? bias_add.inputs[1] : bias_add.inputs[0];
    input = found->first;
    p.remove_nodes.push_back(found->second);
  }

  ir::Node fused;
  fused.name = g.fresh_name(norm.name.empty() ? "SkipLayerNormalization" : norm.name + "_skip");
  fused.op_type = "SkipLayerNormalization";
  fused.domain = kMicrosoftDomain;
  fused.inputs = {input, skip, gamma, beta, bias};
  while (!fused.inputs.empty() && fused.inputs.back().empty()) fused.inputs.pop_back();
  fused.outputs = {norm.y, norm.mean, norm.inv_std, g.single_use(s) ? "" : s};
  while (!fused.outputs.empty() && fused.outputs.back().empty()) fused.outputs.pop_back();
  ir::Attribute eps;
  eps.name = "epsilon";
  eps.type = ir::Attribute::Type::kFloat;
  eps.f = norm.epsilon;
  fused.attributes.emplace("epsilon", eps);
  p.add_nodes.push_back(std::move(fused));
  p.opset_imports[kMicrosoftDomain] = 1;
  return p;
}

}  // namespace onyx::optimizer::skip_ln
