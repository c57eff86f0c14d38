// attention_fusion (extended): the multi-head attention core as BERT-style exports write it,
//   Q4 = Reshape(q, [B, S, N, H]);  QT = Transpose(Q4, [0, 2, 1, 3])
//   K4 = Reshape(k, [B, L, N, H]);  KT = Transpose(K4, [0, 2, 3, 1])   (or [0,2,1,3] then [0,1,3,2])
//   V4 = Reshape(v, [B, L, N, Hv]); VT = Transpose(V4, [0, 2, 1, 3])
//   P  = Softmax(Add(Div(MatMul(QT, KT), c), mask), axis -1)   (Div by c or Mul by 1/c optional,
//                                                                the mask Add optional)
//   y  = Reshape(Transpose(MatMul(P, VT), [0, 2, 1, 3]), [B, S, N * Hv])
// becomes com.microsoft MultiHeadAttention(q, k, v, attention_bias = mask) with num_heads N
// and scale 1/c. GPT-2's causal form is recognised too: the Softmax reads
// Where(causal, scores, fill) with fill a constant at or below -1e30 and causal the rows
// [L - S, L) and columns [0, L) of a constant lower-triangular boolean [1, 1, n, n] (two
// Slices, bounds computed from the query and key lengths), which becomes unidirectional = 1;
// c may be computed, like sqrt(Shape(VT)[-1]), when it provably is a number; and QT, VT, K4
// may also be read by Shape nodes (through a Transpose for K4) that only serve these
// computations, which go with the pattern. The Reshape shapes may be constants or computed from Shape/Gather/Unsqueeze/
// Slice/Concat of the tensors themselves (dynamic batch and sequence); they must provably
// split the last dim into N x H (and merge it back) while keeping dims 0 and 1. Conditions:
// q, k, v and the mask float32, q, k, v of rank 3 with a known last dim; every intermediate
// read only by the pattern (the merge's own shape computation may read its input: it goes
// too). The mask needs no known shape: the kernel broadcasts it, and batch dims of 1, as the
// Add and MatMuls would. Shape computations left unread go with dead_node_elimination.
#include <algorithm>
#include <cmath>
#include <map>

#include "optimizer/fusions/fusion_util.h"
#include "optimizer/fusions/head_split.h"
#include "optimizer/fusions/shape_trace.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

// The node producing `v` when it has op `op` and one output, and `v` is read by one node of
// the pattern and otherwise only by Shape nodes, or (when `transposed_shape_readers`) by
// Transposes read only by Shape nodes. Those readers go to `side`: they serve the pattern's
// own computed shapes and lengths, and feeds_only_into() later proves it.
const ir::Node* inner(const GraphIndex& g, const std::string& v, const char* op, std::vector<size_t>& nodes,
                      std::vector<size_t>& side, bool transposed_shape_readers = false) {
  auto p = g.producer(v);
  if (!p || !is_op(g.node(*p), op) || g.node(*p).outputs.size() != 1 || g.is_graph_output(v) || g.is_captured(v))
    return nullptr;
  auto only_shape_readers = [&](const std::string& t) {
    if (g.is_graph_output(t) || g.is_captured(t)) return false;
    for (size_t c : g.consumers(t))
      if (!is_op(g.node(c), "Shape")) return false;
    return true;
  };
  int pattern_reads = 0;
  std::vector<size_t> readers;
  for (size_t c : g.consumers(v)) {
    const ir::Node& n = g.node(c);
    if (is_op(n, "Shape")) {
      readers.push_back(c);
    } else if (transposed_shape_readers && is_op(n, "Transpose") && n.outputs.size() == 1 &&
               only_shape_readers(n.outputs[0])) {
      readers.push_back(c);
    } else {
      pattern_reads += int(std::count(n.inputs.begin(), n.inputs.end(), v));
    }
  }
  if (pattern_reads != 1) return nullptr;
  nodes.push_back(*p);
  side.insert(side.end(), readers.begin(), readers.end());
  return &g.node(*p);
}

// The nodes reachable from `start` through what they write, when everything they write is
// read only inside that set or by the nodes `allowed`: a computation that serves the pattern
// alone and can go with it. nullopt otherwise (a graph output, a subgraph capture, another
// reader).
std::optional<std::vector<size_t>> feeds_only_into(const GraphIndex& g, const std::vector<size_t>& start,
                                                   const std::vector<size_t>& allowed) {
  std::vector<size_t> set = start, work = start;
  auto in = [](const std::vector<size_t>& v, size_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  for (size_t k = 0; k < work.size(); ++k) {
    if (set.size() > 128) return std::nullopt;
    for (const auto& o : g.node(work[k]).outputs) {
      if (o.empty()) continue;
      if (g.is_graph_output(o) || g.is_captured(o)) return std::nullopt;
      for (size_t c : g.consumers(o)) {
        if (in(allowed, c) || in(set, c)) continue;
        set.push_back(c);
        work.push_back(c);
      }
    }
  }
  return set;
}

// True when constant `c` is a boolean [r, k] or [1, 1, r, k] with c[i][j] = j <= i + offset.
bool causal_constant(const Tensor& c, int64_t offset) {
  if (c.dtype() != DataType::kBool || (c.rank() != 2 && c.rank() != 4)) return false;
  if (c.rank() == 4 && (c.dim(0) != 1 || c.dim(1) != 1)) return false;
  const int64_t rows = c.dim(c.rank() - 2), cols = c.dim(c.rank() - 1);
  const bool* v = c.data<bool>();
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (v[i * cols + j] != (j <= i + offset)) return false;
  return true;
}

// The Slice nodes when `cond` provably is rows [L - S, L) and columns [0, L) of a constant
// lower triangle (see the header), L and S being the symbols `kKey` and `kQuery` of `symbol`
// or their static values; or, with static lengths, when `cond` is that [S, L] mask already
// folded into a constant (no Slices then).
constexpr int kQuery = 0, kKey = 1;
std::optional<std::vector<size_t>> causal_slices(const GraphIndex& g, const std::string& cond, const DimSymbol& symbol,
                                                 const DimExpr& key_len, const DimExpr& query_len) {
  std::map<int64_t, std::pair<DimExpr, DimExpr>> bounds;  // axis (from the end) -> [start, end)
  std::vector<size_t> slices;
  std::string v = cond;
  while (!g.constant(v)) {
    auto p = g.producer(v);
    if (!p || !is_op(g.node(*p), "Slice") || !g.single_use(v) || slices.size() >= 2) return std::nullopt;
    const ir::Node& n = g.node(*p);
    if (n.inputs.size() < 4 || n.outputs.size() != 1) return std::nullopt;
    const Tensor* axes = g.constant(n.inputs[3]);
    const Tensor* steps = n.inputs.size() > 4 && !n.inputs[4].empty() ? g.constant(n.inputs[4]) : nullptr;
    if (!axes || axes->numel() != 1 || (n.inputs.size() > 4 && !n.inputs[4].empty() && (!steps || steps->numel() != 1 ||
                                                                                     steps->get_int64(0) != 1)))
      return std::nullopt;
    auto start = dim_expr(g, n.inputs[1], symbol), end = dim_expr(g, n.inputs[2], symbol);
    auto rank = g.rank(n.inputs[0]);
    if (!start || !end || !rank) return std::nullopt;
    const int64_t axis = axes->get_int64(0) < 0 ? axes->get_int64(0) : axes->get_int64(0) - *rank;
    if (!bounds.emplace(axis, std::make_pair(*start, *end)).second) return std::nullopt;
    slices.push_back(*p);
    v = n.inputs[0];
  }
  const Tensor& c = *g.constant(v);
  DimExpr first_row = key_len;  // L - S
  first_row.constant -= query_len.constant;
  for (const auto& [sym, coef] : query_len.terms)
    if ((first_row.terms[sym] -= coef) == 0) first_row.terms.erase(sym);
  if (slices.empty()) {  // folded already (static lengths): the constant is the [S, L] mask itself
    if (!key_len.terms.empty() || !query_len.terms.empty() || c.rank() < 2 || c.dim(c.rank() - 2) != query_len.constant ||
        c.dim(c.rank() - 1) != key_len.constant || !causal_constant(c, first_row.constant))
      return std::nullopt;
    return slices;
  }
  if (c.rank() < 2 || c.dim(c.rank() - 2) != c.dim(c.rank() - 1) || !causal_constant(c, 0) || bounds.size() != 2 ||
      !bounds.count(-2) || !bounds.count(-1))
    return std::nullopt;
  const DimExpr zero;
  if (!(bounds[-2].first == first_row) || !(bounds[-2].second == key_len) || !(bounds[-1].first == zero) ||
      !(bounds[-1].second == key_len))
    return std::nullopt;
  // Beyond the triangle's n rows the unfused Slices would clamp and the Where fail; the fused
  // kernel has no such bound and runs on.
  return slices;
}

class AttentionFusion final : public RulePass {
 public:
  std::string name() const override { return "attention_fusion"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext& ctx) const override {
    const ir::Node& sm = g.node(i);
    if (!is_op(sm, "Softmax") || sm.inputs.size() != 1 || sm.outputs.size() != 1) return std::nullopt;
    const ir::Attribute* axis = sm.attribute("axis");
    if (axis ? (axis->i != -1 && axis->i != 3) : ctx.opset(sm) < 13) return std::nullopt;
    std::vector<size_t> nodes = {i}, side;

    // Softmax input: [Add(scaled, mask) | Where(causal, scaled, fill)] with
    // scaled = [Div|Mul](MatMul(QT, KT), c).
    std::string x = sm.inputs[0], mask, causal;
    float scale = 1.f;
    std::string computed_scale;  // c when it is computed rather than constant
    bool scale_divides = false;
    auto p_in = g.producer(x);
    if (p_in && is_op(g.node(*p_in), "Where") && g.single_use(x) && g.node(*p_in).inputs.size() == 3) {
      const ir::Node& w = g.node(*p_in);
      const std::optional<double> fill = g.scalar(w.inputs[2]);
      if (!fill || !(*fill <= -1e30) || std::isinf(*fill) || g.elem_type(w.inputs[0]) != DataType::kBool)
        return std::nullopt;
      nodes.push_back(*p_in);
      causal = w.inputs[0];
      x = w.inputs[1];
    } else if (p_in && is_op(g.node(*p_in), "Add") && g.single_use(x) && g.node(*p_in).inputs.size() == 2) {
      const ir::Node& add = g.node(*p_in);
      // The scores side: a MatMul's output, or one scaled by a scalar.
      auto scored = [&](const std::string& v) {
        auto q = g.producer(v);
        if (!q) return false;
        const ir::Node& n = g.node(*q);
        if (is_op(n, "MatMul")) return true;
        if ((!is_op(n, "Div") && !is_op(n, "Mul")) || n.inputs.size() != 2) return false;
        for (int j = 0; j < 2; ++j)
          if (g.scalar(n.inputs[size_t(1 - j)]) && g.producer_of_type(n.inputs[size_t(j)], "MatMul")) return true;
        return false;
      };
      const int k = scored(add.inputs[0]) ? 0 : scored(add.inputs[1]) ? 1 : -1;
      if (k < 0) return std::nullopt;
      nodes.push_back(*p_in);
      x = add.inputs[size_t(k)];
      mask = add.inputs[size_t(1 - k)];
    }
    if (auto p = g.producer(x); p && (is_op(g.node(*p), "Div") || is_op(g.node(*p), "Mul"))) {
      const ir::Node& sc = g.node(*p);
      if (!g.single_use(x) || sc.inputs.size() != 2) return std::nullopt;
      scale_divides = is_op(sc, "Div");
      // The scores side: the MatMul's output (a Div's dividend).
      const int k = scale_divides || g.producer_of_type(sc.inputs[0], "MatMul") ? 0 : 1;
      const std::string& c_name = sc.inputs[size_t(1 - k)];
      if (const Tensor* c_tensor = g.constant(c_name)) {
        const std::optional<double> c = g.scalar(c_name);
        if (!c || *c == 0 || c_tensor->rank() > 0) return std::nullopt;
        scale = float(scale_divides ? 1.0 / *c : *c);
      } else {
        if (g.rank(c_name) != 0) return std::nullopt;  // a computed c must be a scalar: no broadcast
        computed_scale = c_name;
      }
      nodes.push_back(*p);
      x = sc.inputs[size_t(k)];
    }
    const ir::Node* mm1 = inner(g, x, "MatMul", nodes, side);
    if (!mm1 || mm1->inputs.size() != 2 || !side.empty()) return std::nullopt;

    // Q and K.
    const ir::Node* qt = inner(g, mm1->inputs[0], "Transpose", nodes, side);
    if (!qt || !is_transpose(*qt, {0, 2, 1, 3})) return std::nullopt;
    const ir::Node* q4 = inner(g, qt->inputs[0], "Reshape", nodes, side);
    const auto qh = q4 ? split_heads(g, *q4) : std::nullopt;
    if (!qh) return std::nullopt;
    const ir::Node* kt = inner(g, mm1->inputs[1], "Transpose", nodes, side);
    if (!kt) return std::nullopt;
    const std::string kt_out = mm1->inputs[1];
    if (is_transpose(*kt, {0, 1, 3, 2})) {
      kt = inner(g, kt->inputs[0], "Transpose", nodes, side);
      if (!kt || !is_transpose(*kt, {0, 2, 1, 3})) return std::nullopt;
    } else if (!is_transpose(*kt, {0, 2, 3, 1})) {
      return std::nullopt;
    }
    const size_t before_k4 = side.size();
    const ir::Node* k4 = inner(g, kt->inputs[0], "Reshape", nodes, side, true);
    if (!k4 || split_heads(g, *k4) != qh) return std::nullopt;
    std::vector<std::string> key_heads;  // [B, N, L, H] views of K4 read by Shape nodes
    for (size_t k = before_k4; k < side.size(); ++k)
      if (is_transpose(g.node(side[k]), {0, 2, 1, 3})) key_heads.push_back(g.node(side[k]).outputs[0]);
      else if (is_op(g.node(side[k]), "Transpose")) return std::nullopt;

    // P V, back to [B, S, N * Hv].
    auto mm2_index = sole_consumer(g, sm.outputs[0]);
    if (!mm2_index || !is_op(g.node(*mm2_index), "MatMul") || g.node(*mm2_index).inputs.size() != 2 ||
        g.node(*mm2_index).inputs[0] != sm.outputs[0] || g.node(*mm2_index).outputs.size() != 1)
      return std::nullopt;
    const ir::Node& mm2 = g.node(*mm2_index);
    nodes.push_back(*mm2_index);
    const ir::Node* vt = inner(g, mm2.inputs[1], "Transpose", nodes, side);
    if (!vt || !is_transpose(*vt, {0, 2, 1, 3})) return std::nullopt;
    const ir::Node* v4 = inner(g, vt->inputs[0], "Reshape", nodes, side);
    const auto vh = v4 ? split_heads(g, *v4) : std::nullopt;
    if (!vh || vh->first != qh->first) return std::nullopt;
    auto ct_index = sole_consumer(g, mm2.outputs[0]);
    if (!ct_index || !is_transpose(g.node(*ct_index), {0, 2, 1, 3}) || g.node(*ct_index).outputs.size() != 1)
      return std::nullopt;
    nodes.push_back(*ct_index);
    const std::string& ctx_t = g.node(*ct_index).outputs[0];
    // ctx_t is read by the merging Reshape and, for computing its shape, by Shape nodes.
    if (g.is_graph_output(ctx_t) || g.is_captured(ctx_t)) return std::nullopt;
    std::optional<size_t> merge_index;
    for (size_t c : g.consumers(ctx_t)) {
      if (is_op(g.node(c), "Shape")) side.push_back(c);
      else if (merge_index) return std::nullopt;
      else merge_index = c;
    }
    if (!merge_index) return std::nullopt;
    const ir::Node& merge = g.node(*merge_index);
    if (!is_op(merge, "Reshape") || merge.inputs.size() != 2 || merge.inputs[0] != ctx_t || merge.outputs.size() != 1 ||
        merge.inputs[1] == ctx_t)
      return std::nullopt;
    nodes.push_back(*merge_index);
    const std::string &q = q4->inputs[0], &k = k4->inputs[0], &v = v4->inputs[0];
    auto e = shape_elements(g, merge.inputs[1]);
    const int64_t heads = qh->first, width = heads * vh->second;
    if (!e || e->size() != 3 || !(*e)[2].value || (*(*e)[2].value != width && *(*e)[2].value != -1) ||
        !keeps_dim(g, (*e)[0], 0, {ctx_t, q}, copies_zero(merge)) || !keeps_dim(g, (*e)[1], 1, {ctx_t, q}, copies_zero(merge)))
      return std::nullopt;

    // A computed scale: its value from the head sizes the pattern fixes.
    const std::string& qt_out = mm1->inputs[0];
    const std::string& vt_out = mm2.inputs[1];
    const std::string& q4_out = qt->inputs[0];
    const std::string& v4_out = vt->inputs[0];
    const std::string& k4_out = kt->inputs[0];
    if (!computed_scale.empty()) {
      const DimValue head_dims = [&](const std::string& of, int64_t a) -> std::optional<int64_t> {
        if ((of == qt_out || of == q4_out || of == k4_out || of == vt_out || of == v4_out) && a == 3)
          return of == vt_out || of == v4_out ? vh->second : qh->second;
        if (of == kt_out && a == 2) return qh->second;
        if (const Dim* d = static_dim(g, of, a); d && d->value) return *d->value;
        return std::nullopt;
      };
      const std::optional<double> c = scalar_value(g, computed_scale, head_dims);
      if (!c || *c == 0) return std::nullopt;
      scale = float(scale_divides ? 1.0 / *c : *c);
    }
    // A causal mask: its Slices join the pattern.
    if (!causal.empty()) {
      const DimSymbol symbol = [&](const std::string& of, int64_t a) {
        if ((of == qt_out && a == 2) || ((of == q4_out || of == q) && a == 1)) return kQuery;
        if ((of == kt_out && a == 3) || (of == vt_out && a == 2) || ((of == k4_out || of == k || of == v4_out || of == v) && a == 1))
          return kKey;
        if (a == 2 && std::find(key_heads.begin(), key_heads.end(), of) != key_heads.end()) return kKey;
        return -1;
      };
      auto length = [&](const std::string& t, int sym) {
        DimExpr d;
        if (const Dim* s = static_dim(g, t, 1); s && s->value) d.constant = *s->value;
        else d.terms[sym] = 1;
        return d;
      };
      auto slices = causal_slices(g, causal, symbol, length(k, kKey), length(q, kQuery));
      if (!slices) return std::nullopt;
      nodes.insert(nodes.end(), slices->begin(), slices->end());
    }
    // Shape readers and what they compute must serve only the pattern.
    if (!side.empty()) {
      auto closure = feeds_only_into(g, side, nodes);
      if (!closure) return std::nullopt;
      nodes.insert(nodes.end(), closure->begin(), closure->end());
    }
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());

    for (const auto& t : {q, k, v})
      if (g.elem_type(t) != DataType::kFloat) return std::nullopt;
    if (!mask.empty() && g.elem_type(mask) != DataType::kFloat) return std::nullopt;

    Patch p;
    p.remove_nodes = nodes;
    ir::Node fused;
    fused.name = g.fresh_name(sm.name.empty() ? "MultiHeadAttention" : sm.name + "_attention");
    fused.op_type = "MultiHeadAttention";
    fused.domain = kMicrosoftDomain;
    fused.inputs = {q, k, v};
    if (!mask.empty()) fused.inputs.insert(fused.inputs.end(), {"", "", mask});
    fused.outputs = {merge.outputs[0]};
    auto int_attr = [&](const char* name, int64_t value) {
      ir::Attribute a;
      a.name = name;
      a.type = ir::Attribute::Type::kInt;
      a.i = value;
      fused.attributes.emplace(a.name, a);
    };
    int_attr("num_heads", heads);
    if (!causal.empty()) int_attr("unidirectional", 1);
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

ONYX_REGISTER_PASS(Phase::kFuse, 5, AttentionFusion);

}  // namespace onyx::optimizer
