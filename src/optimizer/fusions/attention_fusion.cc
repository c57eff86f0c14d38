// attention_fusion (extended): the multi-head attention core as BERT-style exports write it,
//   Q4 = Reshape(q, [B, S, N, H]);  QT = Transpose(Q4, [0, 2, 1, 3])
//   K4 = Reshape(k, [B, L, N, H]);  KT = Transpose(K4, [0, 2, 3, 1])   (or [0,2,1,3] then [0,1,3,2])
//   V4 = Reshape(v, [B, L, N, Hv]); VT = Transpose(V4, [0, 2, 1, 3])
//   P  = Softmax(Add(Div(MatMul(QT, KT), c), mask), axis -1)   (Div by c or Mul by 1/c optional,
//                                                                the mask Add optional)
//   y  = Reshape(Transpose(MatMul(P, VT), [0, 2, 1, 3]), [B, S, N * Hv])
// becomes com.microsoft MultiHeadAttention(q, k, v, attention_bias = mask) with num_heads N
// and scale 1/c. The Reshape shapes may be constants or computed from Shape/Gather/Unsqueeze/
// Slice/Concat of the tensors themselves (dynamic batch and sequence); they must provably
// split the last dim into N x H (and merge it back) while keeping dims 0 and 1. Conditions:
// q, k, v and the mask float32, q, k, v of rank 3 with a known last dim; every intermediate
// read only by the pattern (the merge's own shape computation may read its input: it goes
// too). The mask needs no known shape: the kernel broadcasts it, and batch dims of 1, as the
// Add and MatMuls would. Shape computations left unread go with dead_node_elimination.
#include <algorithm>

#include "optimizer/fusions/fusion_util.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

// One element of a 1-D shape tensor: a known value and/or dim `axis` of value `of`.
struct ShapeElem {
  std::optional<int64_t> value;
  std::string of;
  int64_t axis = -1;
};

const Dim* static_dim(const GraphIndex& g, const std::string& v, int64_t axis) {
  const ir::TypeInfo* t = g.type(v);
  if (!t || t->kind != ir::TypeInfo::Kind::kTensor || !t->shape.has_rank || axis < 0 ||
      axis >= int64_t(t->shape.dims.size()))
    return nullptr;
  return &t->shape.dims[size_t(axis)];
}

bool same_dim(const Dim* a, const Dim* b) {
  if (!a || !b) return false;
  if (a->value || b->value) return a->value && b->value && *a->value == *b->value;
  return !a->symbol.empty() && a->symbol == b->symbol;
}

// The elements of the 1-D integer tensor `name` when they can be traced through constants,
// Shape, Gather (axis 0, constant indices), Unsqueeze of a scalar, Slice (step 1), Concat
// and Cast.
std::optional<std::vector<ShapeElem>> shape_elements(const GraphIndex& g, const std::string& name, int depth = 0) {
  if (depth > 8) return std::nullopt;
  if (const Tensor* c = g.constant(name)) {
    if (c->rank() > 1 || (c->dtype() != DataType::kInt64 && c->dtype() != DataType::kInt32)) return std::nullopt;
    std::vector<ShapeElem> out;
    for (int64_t i = 0; i < c->numel(); ++i) out.push_back({c->get_int64(i), "", -1});
    return out;
  }
  auto p = g.producer(name);
  if (!p) return std::nullopt;
  const ir::Node& n = g.node(*p);
  if (!n.domain.empty() || n.inputs.empty()) return std::nullopt;
  if (n.op_type == "Shape") {
    auto rank = g.rank(n.inputs[0]);
    if (!rank) return std::nullopt;
    auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + *rank : v, int64_t(0), *rank); };
    int64_t start = 0, end = *rank;
    if (const ir::Attribute* a = n.attribute("start")) start = clamp(a->i);
    if (const ir::Attribute* a = n.attribute("end")) end = clamp(a->i);
    std::vector<ShapeElem> out;
    for (int64_t d = start; d < end; ++d) {
      const Dim* dim = static_dim(g, n.inputs[0], d);
      out.push_back({dim ? dim->value : std::nullopt, n.inputs[0], d});
    }
    return out;
  }
  if (n.op_type == "Cast" || (n.op_type == "Unsqueeze" && g.rank(n.inputs[0]) == 0)) {
    auto in = shape_elements(g, n.inputs[0], depth + 1);
    if (!in || (n.op_type == "Unsqueeze" && in->size() != 1)) return std::nullopt;
    return in;
  }
  if (n.op_type == "Gather" && n.inputs.size() == 2) {
    const ir::Attribute* axis = n.attribute("axis");
    const Tensor* idx = g.constant(n.inputs[1]);
    if ((axis && axis->i != 0) || !idx || idx->rank() > 1) return std::nullopt;
    // Shape(x) of a tensor whose rank is unknown: non-negative indices still name its dims.
    auto s = g.producer(n.inputs[0]);
    if (s && is_op(g.node(*s), "Shape") && !g.node(*s).attribute("start") && !g.rank(g.node(*s).inputs[0])) {
      std::vector<ShapeElem> out;
      for (int64_t i = 0; i < idx->numel(); ++i) {
        if (idx->get_int64(i) < 0) return std::nullopt;
        out.push_back({std::nullopt, g.node(*s).inputs[0], idx->get_int64(i)});
      }
      return out;
    }
    auto in = shape_elements(g, n.inputs[0], depth + 1);
    if (!in) return std::nullopt;
    std::vector<ShapeElem> out;
    for (int64_t i = 0; i < idx->numel(); ++i) {
      int64_t j = idx->get_int64(i);
      if (j < 0) j += int64_t(in->size());
      if (j < 0 || j >= int64_t(in->size())) return std::nullopt;
      out.push_back((*in)[size_t(j)]);
    }
    return out;
  }
  if (n.op_type == "Slice" && n.inputs.size() >= 3) {
    const Tensor* starts = g.constant(n.inputs[1]);
    const Tensor* ends = g.constant(n.inputs[2]);
    const Tensor* axes = n.inputs.size() > 3 && !n.inputs[3].empty() ? g.constant(n.inputs[3]) : nullptr;
    const Tensor* steps = n.inputs.size() > 4 && !n.inputs[4].empty() ? g.constant(n.inputs[4]) : nullptr;
    if (!starts || !ends || starts->numel() != 1 || ends->numel() != 1) return std::nullopt;
    if ((n.inputs.size() > 3 && !n.inputs[3].empty() && (!axes || axes->get_int64(0) != 0)) ||
        (n.inputs.size() > 4 && !n.inputs[4].empty() && (!steps || steps->get_int64(0) != 1)))
      return std::nullopt;
    auto in = shape_elements(g, n.inputs[0], depth + 1);
    if (!in) return std::nullopt;
    const int64_t size = int64_t(in->size());
    auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + size : v, int64_t(0), size); };
    const int64_t b = clamp(starts->get_int64(0)), e = clamp(ends->get_int64(0));
    return std::vector<ShapeElem>(in->begin() + b, in->begin() + std::max(b, e));
  }
  if (n.op_type == "Concat") {
    const ir::Attribute* axis = n.attribute("axis");
    if (!axis || (axis->i != 0 && axis->i != -1)) return std::nullopt;
    std::vector<ShapeElem> out;
    for (const auto& in : n.inputs) {
      auto part = shape_elements(g, in, depth + 1);
      if (!part) return std::nullopt;
      out.insert(out.end(), part->begin(), part->end());
    }
    return out;
  }
  return std::nullopt;
}

// True when shape element `e` of a Reshape (allowzero off when `copy_zero`) at position `axis`
// provably gives dim `axis` of one of `values`.
bool keeps_dim(const GraphIndex& g, const ShapeElem& e, int64_t axis, const std::vector<std::string>& values,
               bool copy_zero) {
  for (const auto& v : values) {
    if (e.of == v && e.axis == axis) return true;
    if (e.value && *e.value == 0 && copy_zero) return true;
    const Dim* want = static_dim(g, v, axis);
    if (e.value && *e.value > 0 && want && want->value && *want->value == *e.value) return true;
    if (!e.of.empty() && same_dim(static_dim(g, e.of, e.axis), want)) return true;
  }
  return false;
}

bool copies_zero(const ir::Node& reshape) {
  const ir::Attribute* a = reshape.attribute("allowzero");
  return !a || a->i == 0;
}

// (N, H) when Reshape node `r` provably turns its rank-3 input [B, S, N*H] into [B, S, N, H].
std::optional<std::pair<int64_t, int64_t>> split_heads(const GraphIndex& g, const ir::Node& r) {
  if (!is_op(r, "Reshape") || r.inputs.size() != 2 || g.rank(r.inputs[0]) != 3) return std::nullopt;
  const auto last = g.last_dim(r.inputs[0]);
  auto e = shape_elements(g, r.inputs[1]);
  if (!last || !e || e->size() != 4 || !(*e)[2].value || !(*e)[3].value) return std::nullopt;
  const int64_t n = *(*e)[2].value, h = *(*e)[3].value;
  if (n <= 0 || h <= 0 || n * h != *last) return std::nullopt;
  const std::vector<std::string> x = {r.inputs[0]};
  if (!keeps_dim(g, (*e)[0], 0, x, copies_zero(r)) || !keeps_dim(g, (*e)[1], 1, x, copies_zero(r))) return std::nullopt;
  return std::make_pair(n, h);
}

bool is_transpose(const ir::Node& n, std::vector<int64_t> perm) {
  const ir::Attribute* p = n.attribute("perm");
  return is_op(n, "Transpose") && n.inputs.size() == 1 && p && p->ints == perm;
}

// The node producing `v` when it has op `op`, `v` is read only by the pattern, and the node
// has one output.
const ir::Node* inner(const GraphIndex& g, const std::string& v, const char* op, std::vector<size_t>& nodes) {
  auto p = g.producer(v);
  if (!p || !g.single_use(v) || !is_op(g.node(*p), op) || g.node(*p).outputs.size() != 1) return nullptr;
  nodes.push_back(*p);
  return &g.node(*p);
}

// The nodes reachable from `start` through what they write, when everything they write is
// read only inside that set or by node `sink`: a computation that serves `sink` alone and
// can go with it. nullopt otherwise (a graph output, a subgraph capture, another reader).
std::optional<std::vector<size_t>> feeds_only(const GraphIndex& g, const std::vector<size_t>& start, size_t sink) {
  std::vector<size_t> set = start, work = start;
  for (size_t k = 0; k < work.size(); ++k) {
    if (set.size() > 64) return std::nullopt;
    for (const auto& o : g.node(work[k]).outputs) {
      if (o.empty()) continue;
      if (g.is_graph_output(o) || g.is_captured(o)) return std::nullopt;
      for (size_t c : g.consumers(o)) {
        if (c == sink || std::find(set.begin(), set.end(), c) != set.end()) continue;
        set.push_back(c);
        work.push_back(c);
      }
    }
  }
  // Everything reached must be fed only by the set or by values from outside it that stay.
  return set;
}

class AttentionFusion final : public RulePass {
 public:
  std::string name() const override { return "attention_fusion"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext& ctx) const override {
    const ir::Node& sm = g.node(i);
    if (!is_op(sm, "Softmax") || sm.inputs.size() != 1 || sm.outputs.size() != 1) return std::nullopt;
    const ir::Attribute* axis = sm.attribute("axis");
    if (axis ? (axis->i != -1 && axis->i != 3) : ctx.opset(sm) < 13) return std::nullopt;
    std::vector<size_t> nodes = {i};

    // Softmax input: [Add(scaled, mask)] with scaled = [Div|Mul](MatMul(QT, KT), c).
    std::string x = sm.inputs[0], mask;
    float scale = 1.f;
    if (auto p = g.producer(x); p && is_op(g.node(*p), "Add") && g.single_use(x) && g.node(*p).inputs.size() == 2) {
      const ir::Node& add = g.node(*p);
      // The scores side: a MatMul's output, or one scaled by a constant scalar.
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
      nodes.push_back(*p);
      x = add.inputs[size_t(k)];
      mask = add.inputs[size_t(1 - k)];
    }
    if (auto p = g.producer(x); p && (is_op(g.node(*p), "Div") || is_op(g.node(*p), "Mul"))) {
      const ir::Node& sc = g.node(*p);
      if (!g.single_use(x) || sc.inputs.size() != 2) return std::nullopt;
      const bool div = is_op(sc, "Div");
      const int k = div || !g.scalar(sc.inputs[0]) ? 0 : 1;  // the scores side
      const std::optional<double> c = g.scalar(sc.inputs[size_t(1 - k)]);
      if (!c || *c == 0 || g.constant(sc.inputs[size_t(1 - k)])->rank() > 0) return std::nullopt;
      scale = float(div ? 1.0 / *c : *c);
      nodes.push_back(*p);
      x = sc.inputs[size_t(k)];
    }
    const ir::Node* mm1 = inner(g, x, "MatMul", nodes);
    if (!mm1 || mm1->inputs.size() != 2) return std::nullopt;

    // Q and K.
    const ir::Node* qt = inner(g, mm1->inputs[0], "Transpose", nodes);
    if (!qt || !is_transpose(*qt, {0, 2, 1, 3})) return std::nullopt;
    const ir::Node* q4 = inner(g, qt->inputs[0], "Reshape", nodes);
    const auto qh = q4 ? split_heads(g, *q4) : std::nullopt;
    if (!qh) return std::nullopt;
    const ir::Node* kt = inner(g, mm1->inputs[1], "Transpose", nodes);
    if (!kt) return std::nullopt;
    if (is_transpose(*kt, {0, 1, 3, 2})) {
      kt = inner(g, kt->inputs[0], "Transpose", nodes);
      if (!kt || !is_transpose(*kt, {0, 2, 1, 3})) return std::nullopt;
    } else if (!is_transpose(*kt, {0, 2, 3, 1})) {
      return std::nullopt;
    }
    const ir::Node* k4 = inner(g, kt->inputs[0], "Reshape", nodes);
    if (!k4 || split_heads(g, *k4) != qh) return std::nullopt;

    // P V, back to [B, S, N * Hv].
    auto mm2_index = sole_consumer(g, sm.outputs[0]);
    if (!mm2_index || !is_op(g.node(*mm2_index), "MatMul") || g.node(*mm2_index).inputs.size() != 2 ||
        g.node(*mm2_index).inputs[0] != sm.outputs[0] || g.node(*mm2_index).outputs.size() != 1)
      return std::nullopt;
    const ir::Node& mm2 = g.node(*mm2_index);
    nodes.push_back(*mm2_index);
    const ir::Node* vt = inner(g, mm2.inputs[1], "Transpose", nodes);
    if (!vt || !is_transpose(*vt, {0, 2, 1, 3})) return std::nullopt;
    const ir::Node* v4 = inner(g, vt->inputs[0], "Reshape", nodes);
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
    std::vector<size_t> shape_readers;
    for (size_t c : g.consumers(ctx_t)) {
      if (is_op(g.node(c), "Shape")) shape_readers.push_back(c);
      else if (merge_index) return std::nullopt;
      else merge_index = c;
    }
    if (!merge_index) return std::nullopt;
    const ir::Node& merge = g.node(*merge_index);
    if (!is_op(merge, "Reshape") || merge.inputs.size() != 2 || merge.inputs[0] != ctx_t || merge.outputs.size() != 1 ||
        merge.inputs[1] == ctx_t)
      return std::nullopt;
    nodes.push_back(*merge_index);
    if (!shape_readers.empty()) {
      auto closure = feeds_only(g, shape_readers, *merge_index);
      if (!closure) return std::nullopt;
      nodes.insert(nodes.end(), closure->begin(), closure->end());
    }
    const std::string &q = q4->inputs[0], &k = k4->inputs[0], &v = v4->inputs[0];
    auto e = shape_elements(g, merge.inputs[1]);
    const int64_t heads = qh->first, width = heads * vh->second;
    if (!e || e->size() != 3 || !(*e)[2].value || (*(*e)[2].value != width && *(*e)[2].value != -1) ||
        !keeps_dim(g, (*e)[0], 0, {ctx_t, q}, copies_zero(merge)) || !keeps_dim(g, (*e)[1], 1, {ctx_t, q}, copies_zero(merge)))
      return std::nullopt;

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
    ir::Attribute n_attr;
    n_attr.name = "num_heads";
    n_attr.type = ir::Attribute::Type::kInt;
    n_attr.i = heads;
    fused.attributes.emplace(n_attr.name, n_attr);
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
