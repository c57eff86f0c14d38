// onnx_attention_fusion: ai.onnx Attention (opsets 23-24) in the 4-D form torch's dynamo
// exporter writes for scaled_dot_product_attention,
//   QT = Transpose(Reshape(q, [B, S, N, H]), [0, 2, 1, 3])     (K and V alike, K with H, V with Hv)
//   Y  = Attention(QT, KT, VT; is_causal, scale)
//   y  = Reshape(Transpose(Y, [0, 2, 1, 3]), [B, S, N * Hv])
// becomes com.microsoft MultiHeadAttention(q, k, v) with num_heads N, scale (the attribute or
// 1/sqrt(H)) and unidirectional = is_causal: the same kernel the explicit form (attention_fusion)
// reaches, reading the heads in place instead of four transposed copies per layer, and one that
// also has a CUDA kernel. The Reshape shapes may be constants or computed (shape_elements).
// Conditions: q, k, v float32 of rank 3 with a known last dim; the same N for Q, K and V (no
// grouped heads); no attention mask, past key/value or nonpad_kv_seqlen input; only output Y
// read; softcap 0; with is_causal, q and k of provably the same length (ai.onnx aligns the
// causal triangle top-left, MultiHeadAttention bottom-right: equal only when S == L); every
// intermediate read only by the pattern. Shape computations left unread go with
// dead_node_elimination.
#include <cmath>

#include "optimizer/fusions/fusion_util.h"
#include "optimizer/fusions/head_split.h"
#include "optimizer/fusions/shape_trace.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

// The node producing `v` when it has op `op`, one output, and `v` is read once, by one node,
// and is no graph output or subgraph capture.
const ir::Node* sole_producer(const GraphIndex& g, const std::string& v, const char* op, std::vector<size_t>& nodes) {
  auto p = g.producer(v);
  if (!p || !is_op(g.node(*p), op) || g.node(*p).outputs.size() != 1 || !g.single_use(v) || g.is_graph_output(v) ||
      g.is_captured(v))
    return nullptr;
  nodes.push_back(*p);
  return &g.node(*p);
}

// The rank-3 value whose heads `t` holds as [B, N, S, H] (Transpose [0, 2, 1, 3] of a head
// split), with (N, H); its two nodes join `nodes`.
std::optional<std::pair<std::string, std::pair<int64_t, int64_t>>> heads_of(const GraphIndex& g, const std::string& t,
                                                                            std::vector<size_t>& nodes) {
  const ir::Node* tr = sole_producer(g, t, "Transpose", nodes);
  if (!tr || !is_transpose(*tr, {0, 2, 1, 3})) return std::nullopt;
  const ir::Node* r = sole_producer(g, tr->inputs[0], "Reshape", nodes);
  const auto nh = r ? split_heads(g, *r) : std::nullopt;
  if (!nh) return std::nullopt;
  return std::make_pair(r->inputs[0], *nh);
}

// True when rank-3 values a and b provably have the same dim 1 (their sequence length): the
// same static dim, or two outputs of one Split on their last axis.
bool same_length(const GraphIndex& g, const std::string& a, const std::string& b) {
  if (same_dim(static_dim(g, a, 1), static_dim(g, b, 1))) return true;
  auto pa = g.producer(a), pb = g.producer(b);
  if (!pa || !pb || *pa != *pb || !is_op(g.node(*pa), "Split")) return false;
  const ir::Attribute* axis = g.node(*pa).attribute("axis");
  return axis && (axis->i == 2 || axis->i == -1) && g.rank(g.node(*pa).inputs[0]) == 3;
}

class OnnxAttentionFusion final : public RulePass {
 public:
  std::string name() const override { return "onnx_attention_fusion"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext& ctx) const override {
    const ir::Node& at = g.node(i);
    if (!is_op(at, "Attention") || ctx.opset(at) < 23 || ctx.opset(at) > 24 || at.inputs.size() < 3) return std::nullopt;
    for (size_t k = 3; k < at.inputs.size(); ++k)
      if (!at.inputs[k].empty()) return std::nullopt;  // mask, past key/value, nonpad_kv_seqlen
    if (at.outputs.empty() || at.outputs[0].empty()) return std::nullopt;
    for (size_t k = 1; k < at.outputs.size(); ++k)
      if (!at.outputs[k].empty() && (!g.consumers(at.outputs[k]).empty() || g.is_graph_output(at.outputs[k]) ||
                                     g.is_captured(at.outputs[k])))
        return std::nullopt;
    if (const ir::Attribute* a = at.attribute("softcap"); a && a->f != 0.f) return std::nullopt;
    const ir::Attribute* causal_attr = at.attribute("is_causal");
    const bool causal = causal_attr && causal_attr->i != 0;

    std::vector<size_t> nodes = {i};
    auto q = heads_of(g, at.inputs[0], nodes);
    auto k = heads_of(g, at.inputs[1], nodes);
    auto v = heads_of(g, at.inputs[2], nodes);
    if (!q || !k || !v || k->second != q->second || v->second.first != q->second.first) return std::nullopt;
    for (const auto* t : {&q->first, &k->first, &v->first})
      if (g.elem_type(*t) != DataType::kFloat) return std::nullopt;
    if (causal && !same_length(g, q->first, k->first)) return std::nullopt;

    // Y back to [B, S, N * Hv].
    auto ct = sole_consumer(g, at.outputs[0]);
    if (!ct || !is_transpose(g.node(*ct), {0, 2, 1, 3}) || g.node(*ct).outputs.size() != 1 || g.is_graph_output(at.outputs[0]) ||
        g.is_captured(at.outputs[0]))
      return std::nullopt;
    nodes.push_back(*ct);
    const std::string& ctx_t = g.node(*ct).outputs[0];
    auto merge = sole_consumer(g, ctx_t);
    if (!merge || g.is_graph_output(ctx_t) || g.is_captured(ctx_t)) return std::nullopt;
    const int64_t heads = q->second.first, head_size = q->second.second;
    if (!merges_heads(g, g.node(*merge), heads * v->second.second, {q->first}) || g.node(*merge).inputs[0] != ctx_t)
      return std::nullopt;
    nodes.push_back(*merge);

    float scale = float(1.0 / std::sqrt(double(head_size)));
    if (const ir::Attribute* a = at.attribute("scale")) scale = a->f;

    Patch p;
    p.remove_nodes = nodes;
    ir::Node fused;
    fused.name = g.fresh_name(at.name.empty() ? "MultiHeadAttention" : at.name + "_mha");
    fused.op_type = "MultiHeadAttention";
    fused.domain = kMicrosoftDomain;
    fused.inputs = {q->first, k->first, v->first};
    fused.outputs = {g.node(*merge).outputs[0]};
    auto int_attr = [&](const char* name, int64_t value) {
      ir::Attribute a;
      a.name = name;
      a.type = ir::Attribute::Type::kInt;
      a.i = value;
      fused.attributes.emplace(a.name, a);
    };
    int_attr("num_heads", heads);
    if (causal) int_attr("unidirectional", 1);
    ir::Attribute s_attr;
    s_attr.name = "scale";
    s_attr.type = ir::Attribute::Type::kFloat;
    s_attr.f = scale;
    fused.attributes.emplace(s_attr.name, s_attr);
    p.add_nodes.push_back(std::move(fused));
    p.opset_imports[kMicrosoftDomain] = 1;
    return p;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kFuse, 5, OnnxAttentionFusion);

}  // namespace onyx::optimizer
