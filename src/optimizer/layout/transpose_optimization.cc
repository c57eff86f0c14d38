// transpose_optimization (layout): removes the Transposes that layout changes leave between
// nodes, by cancelling them pairwise and moving them down the graph until they meet:
//   Transpose nothing reads                       -> removed
//   Transpose(identity perm)                      -> removed (readers read its input)
//   Transpose(Transpose(x, p), q)                 -> x when q undoes p, else Transpose(x, p.q)
//   two Transposes of one value with one perm     -> one
//   Unary(Transpose(x, p))                        -> Transpose(Unary(x), p)
//     (elementwise ops of one tensor input: Relu, Clip, Sigmoid, Tanh, LeakyRelu, Neg, Exp ...)
//   Binary(Transpose(a, p), Transpose(b, p))      -> Transpose(Binary(a, b), p)
//   Binary(Transpose(a, p), c)                    -> Transpose(Binary(a, c), p)
//     (Add, Sub, Mul, Div, Pow, Max, Min; c a one-element constant of rank <= p's)
//   GlobalAveragePool(Transpose(x, p))            -> Transpose(ReduceMean(x, axes p[2:], keepdims 1), p)
//   GlobalMaxPool(Transpose(x, p))                -> the same with ReduceMax
//   Concat(Transpose(x_k, p)..., axis a)          -> Transpose(Concat(x_k..., axis p[a]), p)
//   QuantizeLinear / DequantizeLinear(Transpose(x, p), per-tensor scale) -> moved below, as Unary
//   com.microsoft QLinearAdd / QLinearMul(Transpose(a, p), .., Transpose(b, p), ..)
//                                                 -> Transpose(QLinearAdd(a, .., b, ..), p)
//   com.microsoft QLinearGlobalAveragePool(Transpose(x, NHWC->NCHW), channels_last 0)
//                                                 -> Transpose(the same with channels_last 1, NHWC->NCHW)
// A Transpose that is moved or merged must be read by the rewritten node only (not a graph
// output, not captured), so no rule adds a Transpose. Graph output names stay: a pair that
// cancels into a graph output is removed only when the node before it can write that name
// instead (its output read by the pair alone).
#include <algorithm>
#include <set>

#include "optimizer/fusions/fusion_util.h"
#include "optimizer/layout/layout_util.h"
#include "optimizer/pass.h"
#include "optimizer/simplify/bypass.h"

namespace onyx::optimizer {
namespace {

const std::set<std::string>& unary_ops() {
  static const std::set<std::string> ops = {
      "Abs",      "Acos",      "Acosh", "Asin",     "Asinh", "Atan",        "Atanh",      "Cast",     "Ceil",
      "Celu",     "Clip",      "Cos",   "Cosh",     "Elu",   "Erf",         "Exp",        "Floor",    "HardSigmoid",
      "HardSwish", "Identity", "IsInf", "IsNaN",    "LeakyRelu", "Log",     "Mish",       "Neg",      "Not",
      "Reciprocal", "Relu",    "Round", "Selu",     "Sigmoid", "Sign",      "Sin",        "Sinh",     "Softplus",
      "Softsign", "Sqrt",      "Tan",   "Tanh",     "ThresholdedRelu"};
  return ops;
}

const std::set<std::string>& binary_ops() {
  static const std::set<std::string> ops = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"};
  return ops;
}

// The edit replacing node `i` (reading the Transposes `sources` as listed, the rest as
// given in `inputs`) by the same node on the un-transposed inputs, followed by Transpose(p)
// writing its output. `inputs` are the new node's inputs.
Patch push_below(const GraphIndex& g, size_t i, std::vector<std::string> inputs, const std::set<size_t>& sources,
                 const Perm& p) {
  const ir::Node& n = g.node(i);
  Patch patch;
  patch.remove_nodes = {i};
  patch.remove_nodes.insert(patch.remove_nodes.end(), sources.begin(), sources.end());
  ir::Node moved = n;
  moved.inputs = std::move(inputs);
  const std::string base = n.name.empty() ? n.outputs[0] : n.name;
  const std::string mid = g.fresh_name(n.outputs[0] + "_t");
  moved.outputs = {mid};
  patch.add_nodes.push_back(std::move(moved));
  patch.add_nodes.push_back(make_transpose(g.fresh_name(base + "_transpose"), mid, n.outputs[0], p));
  return patch;
}

class TransposeOptimization final : public RulePass {
 public:
  std::string name() const override { return "transpose_optimization"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext& ctx) const override {
    const ir::Node& n = g.node(i);
    if (n.outputs.size() != 1 || n.outputs[0].empty()) return std::nullopt;
    if (n.domain.empty() && n.op_type == "Transpose") return transpose(g, i);
    if (n.inputs.empty() || n.inputs[0].empty()) return std::nullopt;
    if (n.domain == kMicrosoftDomain) {
      if (n.op_type == "QLinearAdd" || n.op_type == "QLinearMul") return qlinear_binary(g, i);
      if (n.op_type == "QLinearGlobalAveragePool") return qlinear_global_pool(g, i);
      return std::nullopt;
    }
    if (!n.domain.empty()) return std::nullopt;
    if ((n.op_type == "QuantizeLinear" || n.op_type == "DequantizeLinear") && per_tensor(g, n)) return unary(g, i);
    if (unary_ops().count(n.op_type)) return unary(g, i);
    if (binary_ops().count(n.op_type)) return binary(g, i);
    if (n.op_type == "GlobalAveragePool" || n.op_type == "GlobalMaxPool") return global_pool(g, i, ctx);
    if (n.op_type == "Concat") return concat(g, i);
    return std::nullopt;
  }

 private:
  static std::optional<Patch> transpose(const GraphIndex& g, size_t i) {
    const ir::Node& n = g.node(i);
    auto q = transpose_perm(g, n);
    if (!q) return std::nullopt;
    const std::string& in = n.inputs[0];
    const std::string& out = n.outputs[0];
    if (g.unused(out)) {  // left behind when its readers cancelled with it one by one
      Patch p;
      p.remove_nodes = {i};
      return p;
    }
    if (is_identity(*q)) return bypass_node(g, i, in, out);
    if (g.is_captured(out)) return std::nullopt;
    auto src = transpose_source(g, in);
    if (src && src->perm.size() == q->size() && g.is_graph_output(out)) {
      // The pair cancels into a graph output: the node before them writes it (the name stays).
      const std::string& v = g.node(src->node).inputs[0];
      auto prod = g.producer(v);
      if (!is_identity(compose(src->perm, *q)) || !only_read_by(g, in, i) || !prod || g.is_graph_input(v) ||
          !only_read_by(g, v, src->node))
        return std::nullopt;
      ir::Node renamed = g.node(*prod);
      for (auto& o : renamed.outputs)
        if (o == v) o = out;
      Patch p;
      p.remove_nodes = {*prod, src->node, i};
      p.add_nodes.push_back(std::move(renamed));
      return p;
    }
    if (g.is_graph_output(out)) return std::nullopt;
    if (src && src->perm.size() == q->size()) {
      const ir::Node& first = g.node(src->node);
      const Perm r = compose(src->perm, *q);
      const bool first_goes = only_read_by(g, in, i);
      Patch p;
      p.remove_nodes = {i};
      if (first_goes) p.remove_nodes.push_back(src->node);
      if (is_identity(r)) {
        p.replace_uses = {{out, first.inputs[0]}};
        return p;
      }
      if (!first_goes) return std::nullopt;
      p.add_nodes.push_back(make_transpose(n.name, first.inputs[0], out, r));
      return p;
    }
    // Another Transpose of the same value with the same perm, later in the order: it goes.
    for (size_t k : g.consumers(in)) {
      if (k <= i) continue;
      const ir::Node& other = g.node(k);
      auto r = transpose_perm(g, other);
      if (!r || *r != *q || g.is_graph_output(other.outputs[0]) || g.is_captured(other.outputs[0])) continue;
      Patch p;
      p.remove_nodes = {k};
      p.replace_uses = {{other.outputs[0], out}};
      return p;
    }
    return std::nullopt;
  }

  // A Quantize/DequantizeLinear whose scale and zero point are one constant value each.
  static bool per_tensor(const GraphIndex& g, const ir::Node& n) {
    for (size_t k = 1; k < n.inputs.size(); ++k) {
      if (n.inputs[k].empty()) continue;
      const Tensor* c = g.constant(n.inputs[k]);
      if (!c || c->numel() != 1) return false;
    }
    return n.inputs.size() >= 2;
  }

  // QLinearAdd / QLinearMul: A (input 0) and B (input 3) both transposed alike; the scales and
  // zero points are scalars and stay.
  static std::optional<Patch> qlinear_binary(const GraphIndex& g, size_t i) {
    const ir::Node& n = g.node(i);
    if (n.inputs.size() < 7 || n.inputs[3].empty() || n.inputs[0] == n.inputs[3]) return std::nullopt;
    auto a = transpose_source(g, n.inputs[0]);
    auto b = transpose_source(g, n.inputs[3]);
    if (!a || !b || a->perm != b->perm || !only_read_by(g, n.inputs[0], i) || !only_read_by(g, n.inputs[3], i))
      return std::nullopt;
    std::vector<std::string> inputs = n.inputs;
    inputs[0] = g.node(a->node).inputs[0];
    inputs[3] = g.node(b->node).inputs[0];
    return push_below(g, i, std::move(inputs), {a->node, b->node}, a->perm);
  }

  static std::optional<Patch> qlinear_global_pool(const GraphIndex& g, size_t i) {
    const ir::Node& n = g.node(i);
    const ir::Attribute* last = n.attribute("channels_last");
    if (last && last->i != 0) return std::nullopt;
    auto src = transpose_source(g, n.inputs[0]);
    if (!src || src->perm != kToNchw || !only_read_by(g, n.inputs[0], i)) return std::nullopt;
    std::vector<std::string> inputs = n.inputs;
    inputs[0] = g.node(src->node).inputs[0];
    Patch p = push_below(g, i, std::move(inputs), {src->node}, src->perm);
    ir::Attribute a;
    a.name = "channels_last";
    a.type = ir::Attribute::Type::kInt;
    a.i = 1;
    p.add_nodes[0].attributes["channels_last"] = a;
    return p;
  }

  static std::optional<Patch> unary(const GraphIndex& g, size_t i) {
    const ir::Node& n = g.node(i);
    auto src = transpose_source(g, n.inputs[0]);
    if (!src || !only_read_by(g, n.inputs[0], i)) return std::nullopt;
    for (size_t k = 1; k < n.inputs.size(); ++k)
      if (n.inputs[k] == n.inputs[0]) return std::nullopt;
    std::vector<std::string> inputs = n.inputs;
    inputs[0] = g.node(src->node).inputs[0];
    return push_below(g, i, std::move(inputs), {src->node}, src->perm);
  }

  static std::optional<Patch> binary(const GraphIndex& g, size_t i) {
    const ir::Node& n = g.node(i);
    if (n.inputs.size() != 2 || n.inputs[1].empty()) return std::nullopt;
    std::optional<Perm> perm;
    std::set<size_t> sources;
    std::vector<std::string> inputs = n.inputs;
    std::vector<size_t> scalars;
    for (size_t k = 0; k < 2; ++k) {
      if (auto src = transpose_source(g, n.inputs[k])) {
        if (!only_read_by(g, n.inputs[k], i) || (perm && *perm != src->perm)) return std::nullopt;
        perm = src->perm;
        sources.insert(src->node);
        inputs[k] = g.node(src->node).inputs[0];
      } else {
        scalars.push_back(k);
      }
    }
    if (!perm) return std::nullopt;
    for (size_t k : scalars) {
      const Tensor* c = g.constant(n.inputs[k]);
      if (!c || c->numel() != 1 || c->rank() > int64_t(perm->size())) return std::nullopt;
    }
    return push_below(g, i, std::move(inputs), sources, *perm);
  }

  static std::optional<Patch> global_pool(const GraphIndex& g, size_t i, const PassContext& ctx) {
    const ir::Node& n = g.node(i);
    if (n.inputs.size() != 1) return std::nullopt;
    auto src = transpose_source(g, n.inputs[0]);
    if (!src || src->perm.size() < 3 || !only_read_by(g, n.inputs[0], i)) return std::nullopt;
    std::vector<int64_t> axes(src->perm.begin() + 2, src->perm.end());
    std::sort(axes.begin(), axes.end());
    const std::string reduce = n.op_type == "GlobalAveragePool" ? "ReduceMean" : "ReduceMax";
    // ReduceMean takes axes as an input from opset 18, ReduceMax from opset 18 too.
    const bool axes_input = ctx.opset(n) >= 18;

    Patch p = push_below(g, i, {g.node(src->node).inputs[0]}, {src->node}, src->perm);
    ir::Node& r = p.add_nodes[0];
    r.op_type = reduce;
    r.attributes.clear();
    ir::Attribute keep;
    keep.name = "keepdims";
    keep.type = ir::Attribute::Type::kInt;
    keep.i = 1;
    r.attributes["keepdims"] = keep;
    if (axes_input) {
      const std::string name = g.fresh_name(n.outputs[0] + "_axes");
      Tensor t(DataType::kInt64, {int64_t(axes.size())});
      std::copy(axes.begin(), axes.end(), t.data<int64_t>());
      r.inputs.push_back(name);
      p.add_initializers.emplace_back(name, std::move(t));
    } else {
      ir::Attribute a;
      a.name = "axes";
      a.type = ir::Attribute::Type::kInts;
      a.ints = axes;
      r.attributes["axes"] = a;
    }
    return p;
  }

  static std::optional<Patch> concat(const GraphIndex& g, size_t i) {
    const ir::Node& n = g.node(i);
    const ir::Attribute* axis = n.attribute("axis");
    if (!axis) return std::nullopt;
    std::optional<Perm> perm;
    std::set<size_t> sources;
    std::vector<std::string> inputs = n.inputs;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      auto src = transpose_source(g, n.inputs[k]);
      if (!src || !only_read_by(g, n.inputs[k], i) || (perm && *perm != src->perm)) return std::nullopt;
      perm = src->perm;
      sources.insert(src->node);
      inputs[k] = g.node(src->node).inputs[0];
    }
    const int64_t rank = int64_t(perm->size());
    const int64_t a = axis->i < 0 ? axis->i + rank : axis->i;
    if (a < 0 || a >= rank) return std::nullopt;
    Patch p = push_below(g, i, std::move(inputs), sources, *perm);
    p.add_nodes[0].attributes["axis"].i = (*perm)[size_t(a)];
    return p;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kLayout, 20, TransposeOptimization);

}  // namespace onyx::optimizer
