// onnx_attention_fusion: ai.onnx Attention (opsets 23-24) in the 4-D form torch's dynamo
// exporter writes for scaled_dot_product_attention,
//   QT = Transpose(Reshape(q, [B, S, N, H]), [0, 2, 1, 3])     (K and V alike, K with H, V with Hv)
//   Y  = Attention(QT, KT, VT; is_causal, scale)
//   y  = Reshape(Transpose(Y, [0, 2, 1, 3]), [B, S, N * Hv])
// becomes com.microsoft MultiHeadAttention(q, k, v) with num_heads N, scale (the attribute or
// 1/sqrt(H)) and unidirectional = is_causal: the same kernel the explicit form (attention_fusion)
// reaches, reading the heads in place instead of four transposed copies per layer, and one that
// also has a CUDA kernel. The Reshape shapes may be constants or computed (shape_elements).
// A float attn_mask (additive) becomes MultiHeadAttention's attention_bias, raised to rank 4
// by an Unsqueeze when it has fewer dims: it must provably broadcast as the bias does, [B or 1,
// N or 1, S or 1, L] (its last dim the keys' length, the one before the queries' or 1), and be
// a constant in which every row has a key that is not -inf: a row masked whole gives zeros
// from Attention but NaN from MultiHeadAttention (in ORT as in onyx), so a mask fed at run
// time, which could hold such a row, keeps the Attention node.
// Conditions: q, k, v float32 of rank 3 with a known last dim; the same N for Q, K and V (no
// grouped heads); no boolean mask, past key/value or nonpad_kv_seqlen input; only output Y
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

// True when the float mask `mask` of rank `rank` (2 to 4) broadcasts as MultiHeadAttention's
// attention_bias reads it: its last dim the keys' length (k [B, L, D]), the one before the
// queries' length (q [B, S, D]) or 1, then N or 1 and B or 1.
bool mask_fits(const GraphIndex& g, const std::string& mask, int64_t rank, const std::string& q, const std::string& k,
               int64_t heads) {
  if (g.elem_type(mask) != DataType::kFloat || rank < 2 || rank > 4) return false;
  const Tensor* values = g.constant(mask);
  if (!values || values->dtype() != DataType::kFloat || values->rank() != rank || values->numel() == 0) return false;
  const int64_t row = values->dim(rank - 1);
  const float* m = values->data<float>();
  for (int64_t r0 = 0; r0 < values->numel(); r0 += row) {
    bool any_key = false;
    for (int64_t j = 0; j < row && !any_key; ++j) any_key = !(std::isinf(m[r0 + j]) && m[r0 + j] < 0);
    if (!any_key) return false;
  }
  auto is_static = [&](int64_t axis, int64_t value) {
    const Dim* d = static_dim(g, mask, axis);
    return d && d->value && *d->value == value;
  };
  if (!same_dim(static_dim(g, mask, rank - 1), static_dim(g, k, 1))) return false;
  if (!is_static(rank - 2, 1) && !same_dim(static_dim(g, mask, rank - 2), static_dim(g, q, 1))) return false;
  if (rank >= 3 && !is_static(rank - 3, 1) && !is_static(rank - 3, heads)) return false;
  if (rank == 4 && !is_static(0, 1) && !same_dim(static_dim(g, mask, 0), static_dim(g, q, 0))) return false;
  return true;
}

class OnnxAttentionFusion final : public RulePass {
 public:
  std::string name() const override { return "onnx_attention_fusion"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext& ctx) const override {
    const ir::Node& at = g.node(i);
    if (!is_op(at, "Attention") || ctx.opset(at) < 23 || ctx.opset(at) > 24 || at.inputs.size() < 3) return std::nullopt;
    for (size_t k = 4; k < at.inputs.size(); ++k)
      if (!at.inputs[k].empty()) return std::nullopt;  // past key/value, nonpad_kv_seqlen
    const std::string mask = at.inputs.size() > 3 ? at.inputs[3] : std::string();
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
    const int64_t mask_rank = mask.empty() ? 0 : g.rank(mask).value_or(0);
    if (!mask.empty() && !mask_fits(g, mask, mask_rank, q->first, k->first, q->second.first)) return std::nullopt;

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
    if (!mask.empty()) {
      std::string bias = mask;
      if (mask_rank < 4) {  // leading dims of 1, as broadcasting reads the mask
        const std::string axes = g.fresh_name(at.outputs[0] + "_bias_axes");
        bias = g.fresh_name(at.outputs[0] + "_bias");
        std::vector<int64_t> leading;
        for (int64_t d = 0; d < 4 - mask_rank; ++d) leading.push_back(d);
        Tensor axes_t(DataType::kInt64, {int64_t(leading.size())});
        for (size_t d = 0; d < leading.size(); ++d) axes_t.data<int64_t>()[d] = leading[d];
        p.add_initializers.emplace_back(axes, std::move(axes_t));
        ir::Node unsqueeze;
        unsqueeze.name = g.fresh_name(bias + "_unsqueeze");
        unsqueeze.op_type = "Unsqueeze";
        unsqueeze.inputs = {mask, axes};
        unsqueeze.outputs = {bias};
        p.add_nodes.push_back(std::move(unsqueeze));
      }
      fused.inputs.insert(fused.inputs.end(), {"", "", bias});  // key_padding_mask absent, attention_bias
    }
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
