// conv_activation_fusion (extended): a 2-D Conv and what follows it become one com.microsoft
// FusedConv(X, W, B, Z), computing Y = activation(conv(X, W) + B + Z):
//   Conv -> Relu | Clip | LeakyRelu | Sigmoid | Tanh | HardSigmoid   activation (+ params)
//   Conv -> Add(other)                                               Z = other
//   Conv -> Add(other) -> Relu ...                                   Z, then the activation
// (ResNet's residual block is the last form). A FusedConv this pass made is matched again, so
// the chain folds one step at a time up to the first node that does not fit.
// Conditions: X float32 (static type) of rank 4; W a constant of rank 4; each folded value
// (the conv output, the Add's output) read by the next node only (not a graph output, not
// captured); the Add only while the node has no activation and no Z yet, its other operand
// float32 with the conv output's static shape (same rank; each dim the same value, or the same
// dim_param); Clip's min and max constant scalars or absent (opset >= 11) or attributes (< 11).
#include <limits>

#include "optimizer/fusions/fusion_util.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

constexpr const char* kFusedConv = "FusedConv";

// The activation a node computes, in FusedConv's terms.
struct Activation {
  std::string name;
  std::vector<float> params;
};

float attr_float_or(const ir::Node& n, const char* name, float fallback) {
  const ir::Attribute* a = n.attribute(name);
  return a ? a->f : fallback;
}

// The activation of node `n` reading the conv output as its first input; nullopt when `n` is
// not one FusedConv can apply.
std::optional<Activation> activation_of(const GraphIndex& g, const ir::Node& n, int64_t opset) {
  if (!n.domain.empty() || n.outputs.size() != 1 || n.outputs[0].empty() || n.inputs.empty()) return std::nullopt;
  const std::string& op = n.op_type;
  if (op == "Relu" || op == "Sigmoid" || op == "Tanh") {
    if (n.inputs.size() != 1) return std::nullopt;
    return Activation{op, {}};
  }
  if (op == "LeakyRelu") {
    if (n.inputs.size() != 1) return std::nullopt;
    return Activation{op, {attr_float_or(n, "alpha", 0.01f)}};
  }
  if (op == "HardSigmoid") {
    if (n.inputs.size() != 1) return std::nullopt;
    return Activation{op, {attr_float_or(n, "alpha", 0.2f), attr_float_or(n, "beta", 0.5f)}};
  }
  if (op == "Clip") {
    float lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max();
    if (opset < 11) {
      if (n.inputs.size() != 1) return std::nullopt;
      lo = attr_float_or(n, "min", lo);
      hi = attr_float_or(n, "max", hi);
    } else {
      if (n.inputs.size() > 3) return std::nullopt;
      for (size_t k = 1; k < n.inputs.size(); ++k) {
        if (n.inputs[k].empty()) continue;
        const std::optional<double> v = g.scalar(n.inputs[k]);
        if (!v || g.constant(n.inputs[k])->dtype() != DataType::kFloat) return std::nullopt;
        (k == 1 ? lo : hi) = float(*v);
      }
    }
    return Activation{op, {lo, hi}};
  }
  return std::nullopt;
}

bool dims_agree(const Dim& a, const Dim& b) {
  if (a.value || b.value) return a.value && b.value && *a.value == *b.value;
  return !a.symbol.empty() && a.symbol == b.symbol;
}

// True when `a` and `b` are float32 tensors with the same static shape.
bool same_static_shape(const GraphIndex& g, const std::string& a, const std::string& b) {
  const ir::TypeInfo* ta = g.type(a);
  const ir::TypeInfo* tb = g.type(b);
  if (!ta || !tb || ta->kind != ir::TypeInfo::Kind::kTensor || tb->kind != ir::TypeInfo::Kind::kTensor) return false;
  if (ta->elem_type != DataType::kFloat || tb->elem_type != DataType::kFloat) return false;
  if (!ta->shape.has_rank || !tb->shape.has_rank || ta->shape.dims.size() != tb->shape.dims.size()) return false;
  for (size_t k = 0; k < ta->shape.dims.size(); ++k)
    if (!dims_agree(ta->shape.dims[k], tb->shape.dims[k])) return false;
  return true;
}

bool has_activation(const ir::Node& n) {
  const ir::Attribute* a = n.attribute("activation");
  return a && !a->s.empty();
}

bool has_z(const ir::Node& n) { return n.inputs.size() > 3 && !n.inputs[3].empty(); }

void set_activation(ir::Node& n, const Activation& act) {
  ir::Attribute a;
  a.name = "activation";
  a.type = ir::Attribute::Type::kString;
  a.s = act.name;
  n.attributes["activation"] = std::move(a);
  n.attributes.erase("activation_params");
  if (!act.params.empty()) {
    ir::Attribute p;
    p.name = "activation_params";
    p.type = ir::Attribute::Type::kFloats;
    p.floats = act.params;
    n.attributes["activation_params"] = std::move(p);
  }
}

class ConvActivationFusion final : public RulePass {
 public:
  std::string name() const override { return "conv_activation_fusion"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext& ctx) const override {
    const ir::Node& conv = g.node(i);
    const bool is_conv = is_op(conv, "Conv");
    const bool is_fused = conv.op_type == kFusedConv && conv.domain == kMicrosoftDomain;
    if (!is_conv && !is_fused) return std::nullopt;
    if (conv.inputs.size() < 2 || conv.inputs.size() > (is_fused ? 4u : 3u) || conv.outputs.size() != 1 ||
        conv.outputs[0].empty())
      return std::nullopt;
    const std::string& x = conv.inputs[0];
    if (g.elem_type(x) != DataType::kFloat || g.rank(x) != 4) return std::nullopt;
    const Tensor* w = g.constant(conv.inputs[1]);
    if (!w || w->rank() != 4 || w->dtype() != DataType::kFloat) return std::nullopt;

    ir::Node fused = conv;
    if (is_conv) {
      fused.op_type = kFusedConv;
      fused.domain = kMicrosoftDomain;
    }
    Patch p;
    p.remove_nodes = {i};
    // Folds followers while they fit; `out` is the value the fused node writes so far.
    std::string out = conv.outputs[0];
    for (;;) {
      auto next = sole_consumer(g, out);
      if (!next || has_activation(fused)) break;
      const ir::Node& n = g.node(*next);
      if (is_op(n, "Add") && !has_z(fused) && n.outputs.size() == 1 && !n.outputs[0].empty()) {
        auto other = other_input(n, out);
        if (!other || !same_static_shape(g, *other, out)) break;
        fused.inputs.resize(4);
        fused.inputs[3] = *other;
        out = n.outputs[0];
        p.remove_nodes.push_back(*next);
        continue;
      }
      if (n.inputs.empty() || n.inputs[0] != out) break;  // Clip's min or max, not its input
      std::optional<Activation> act = activation_of(g, n, ctx.opset(n));
      if (!act) break;
      set_activation(fused, *act);
      out = n.outputs[0];
      p.remove_nodes.push_back(*next);
    }
    if (p.remove_nodes.size() == 1) return std::nullopt;
    fused.outputs = {out};
    p.add_nodes.push_back(std::move(fused));
    p.opset_imports[kMicrosoftDomain] = 1;
    return p;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kFuse, 50, ConvActivationFusion);

}  // namespace onyx::optimizer
