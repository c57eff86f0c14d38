// qdq_fusion (fuse): operators wrapped in DequantizeLinear / QuantizeLinear (the QDQ form that
// ONNX Runtime's quantiser and `onyx quantize --format qdq` write) become the quantised
// operators onyx runs in int8:
//   Q(Conv(DQ(x), DQ(w) [, DQ(b)]) [-> Relu])      -> QLinearConv(x, .., w, .., y_scale, y_zp [, b])
//   Q(Add(DQ(a), DQ(b)) [-> Relu])                  -> com.microsoft QLinearAdd
//   Q(GlobalAveragePool(DQ(x)))                     -> com.microsoft QLinearGlobalAveragePool
//   [Q](Gemm(DQ(a), DQ(B) [, DQ(C)]))               -> com.microsoft QGemm (float32 output without Q)
//   Q(MaxPool | Flatten | Reshape | ... (DQ(x)))    -> the op on x, when Q's scale and zero point
//                                                      are DQ's (the values pass unchanged)
// Conditions: every DQ / Q per tensor with constant scale and zero point (uint8 / int8), except
// a Conv's weight DQ, which may be per output channel (axis 0); w constant; a bias DQ int32
// with zero point 0 and scale x_scale * w_scale (within 1e-6 relative); the op's output read
// by the Q alone (or by a Relu read by the Q alone, absorbed when Q's zero point is the type's
// lowest value, where saturation does what Relu did). The DQs stay for other readers; dead
// ones go in simplify.
#include <set>

#include "optimizer/fusions/fusion_util.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

const std::set<std::string> kPassThrough = {"MaxPool", "Flatten", "Reshape", "Squeeze", "Unsqueeze", "Transpose"};

struct Dq {
  const ir::Node* node = nullptr;  // the DequantizeLinear
  const Tensor* scale = nullptr;
  const Tensor* zero_point = nullptr;  // null when omitted
};

bool is_8bit(DataType t) { return t == DataType::kUInt8 || t == DataType::kInt8; }

// The DequantizeLinear writing `name`, with constant scale and zero point; per tensor unless
// `axis0` (then also one value per slice of axis 0).
std::optional<Dq> dq_of(const GraphIndex& g, const std::string& name, bool axis0 = false) {
  const ir::Node* n = g.producer_of_type(name, "DequantizeLinear");
  if (!n || !n->domain.empty() || n->inputs.size() < 2) return std::nullopt;
  Dq d;
  d.node = n;
  d.scale = g.constant(n->inputs[1]);
  if (!d.scale || d.scale->dtype() != DataType::kFloat) return std::nullopt;
  if (n->inputs.size() > 2 && !n->inputs[2].empty()) {
    d.zero_point = g.constant(n->inputs[2]);
    if (!d.zero_point) return std::nullopt;
  }
  if (d.scale->numel() != 1) {
    const ir::Attribute* a = n->attribute("axis");
    if (!axis0 || !a || a->i != 0 || d.scale->rank() != 1) return std::nullopt;
  }
  return d;
}

// The QuantizeLinear alone reading `name`, per tensor with constant scale and zero point.
std::optional<size_t> sole_q(const GraphIndex& g, const std::string& name) {
  if (g.is_graph_output(name)) return std::nullopt;
  auto k = sole_consumer(g, name);
  if (!k) return std::nullopt;
  const ir::Node& q = g.node(*k);
  if (!is_op(q, "QuantizeLinear") || q.inputs.size() < 3 || q.inputs[2].empty()) return std::nullopt;
  const Tensor* s = g.constant(q.inputs[1]);
  const Tensor* z = g.constant(q.inputs[2]);
  if (!s || !z || s->numel() != 1 || z->numel() != 1 || !is_8bit(z->dtype())) return std::nullopt;
  return k;
}

int64_t lowest(DataType t) { return t == DataType::kUInt8 ? 0 : -128; }

class QdqFusion final : public RulePass {
 public:
  std::string name() const override { return "qdq_fusion"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext&) const override {
    const ir::Node& n = g.node(i);
    if (!n.domain.empty() || n.inputs.empty() || n.outputs.size() != 1 || n.outputs[0].empty()) return std::nullopt;
    if (n.op_type == "Gemm") return match_gemm(g, i);
    const bool conv = n.op_type == "Conv", add = n.op_type == "Add", gap = n.op_type == "GlobalAveragePool";
    const bool pass = kPassThrough.count(n.op_type) > 0;
    if (!conv && !add && !gap && !pass) return std::nullopt;
    // The output end: a Q, perhaps after a Relu.
    std::vector<size_t> removed = {i};
    std::string y = n.outputs[0];
    const ir::Node* relu = nullptr;
    if ((conv || add) && !g.is_graph_output(y)) {
      if (auto k = sole_consumer(g, y); k && is_op(g.node(*k), "Relu")) {
        relu = &g.node(*k);
        removed.push_back(*k);
        y = relu->outputs[0];
      }
    }
    auto qi = sole_q(g, y);
    if (!qi) return std::nullopt;
    const ir::Node& q = g.node(*qi);
    removed.push_back(*qi);
    const Tensor* y_zp = g.constant(q.inputs[2]);
    if (relu && y_zp->get_int64(0) != lowest(y_zp->dtype())) return std::nullopt;

    auto x = dq_of(g, n.inputs[0]);
    if (!x || !x->zero_point || x->scale->numel() != 1 || !is_8bit(x->zero_point->dtype())) return std::nullopt;
    ir::Node out;
    out.name = g.fresh_name((n.name.empty() ? n.outputs[0] : n.name) + "_int8");
    out.outputs = {q.outputs[0]};
    const std::vector<std::string> x_q = {x->node->inputs[0], x->node->inputs[1], x->node->inputs[2]};
    Patch p;
    if (conv) {
      if (n.inputs.size() < 2) return std::nullopt;
      auto w = dq_of(g, n.inputs[1], /*axis0=*/true);
      if (!w || !w->zero_point || !g.constant(w->node->inputs[0]) || !is_8bit(w->zero_point->dtype()) ||
          w->zero_point->numel() != w->scale->numel())
        return std::nullopt;
      out.op_type = "QLinearConv";
      out.inputs = {x_q[0], x_q[1], x_q[2], w->node->inputs[0], w->node->inputs[1], w->node->inputs[2],
                    q.inputs[1], q.inputs[2]};
      if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
        auto b = dq_of(g, n.inputs[2], /*axis0=*/true);
        const Tensor* bq = b ? g.constant(b->node->inputs[0]) : nullptr;
        if (!bq || bq->dtype() != DataType::kInt32 || (b->zero_point && !all_zero(*b->zero_point))) return std::nullopt;
        // B's scale must be x_scale * w_scale, channel by channel.
        const float xs = x->scale->data<float>()[0];
        const int64_t m = w->scale->numel();
        if (b->scale->numel() != m && b->scale->numel() != 1) return std::nullopt;
        for (int64_t k = 0; k < std::max(m, b->scale->numel()); ++k) {
          const double want = double(xs) * w->scale->data<float>()[m == 1 ? 0 : k];
          if (!near(b->scale->data<float>()[b->scale->numel() == 1 ? 0 : k], want, 1e-6)) return std::nullopt;
        }
        out.inputs.push_back(b->node->inputs[0]);
      }
      out.attributes = n.attributes;
    } else if (add) {
      if (n.inputs.size() != 2) return std::nullopt;
      auto b = dq_of(g, n.inputs[1]);
      if (!b || !b->zero_point || b->zero_point->dtype() != x->zero_point->dtype() ||
          y_zp->dtype() != x->zero_point->dtype())
        return std::nullopt;
      out.op_type = "QLinearAdd";
      out.domain = kMicrosoftDomain;
      out.inputs = {x_q[0], x_q[1], x_q[2], b->node->inputs[0], b->node->inputs[1], b->node->inputs[2], q.inputs[1],
                    q.inputs[2]};
      p.opset_imports[kMicrosoftDomain] = 1;
    } else if (gap) {
      if (y_zp->dtype() != x->zero_point->dtype()) return std::nullopt;
      out.op_type = "QLinearGlobalAveragePool";
      out.domain = kMicrosoftDomain;
      out.inputs = {x_q[0], x_q[1], x_q[2], q.inputs[1], q.inputs[2]};
      p.opset_imports[kMicrosoftDomain] = 1;
    } else {
      // The values pass unchanged: Q must undo DQ exactly.
      const Tensor* q_scale = g.constant(q.inputs[1]);
      if (q.inputs[1] != x_q[1] && q_scale->data<float>()[0] != x->scale->data<float>()[0]) return std::nullopt;
      if (y_zp->dtype() != x->zero_point->dtype() || y_zp->get_int64(0) != x->zero_point->get_int64(0))
        return std::nullopt;
      if (n.op_type == "MaxPool" && n.outputs.size() != 1) return std::nullopt;
      out.op_type = n.op_type;
      out.inputs = n.inputs;
      out.inputs[0] = x_q[0];
      out.attributes = n.attributes;
    }
    p.remove_nodes = removed;
    p.add_nodes.push_back(std::move(out));
    return p;
  }

 private:
  // Gemm(DQ(a), DQ(B) [, DQ(C int32)]) -> QGemm, quantised when a Q alone reads the output.
  // B's DQ per tensor or per output column (axis 0 with transB, else 1); C's scale
  // a_scale * b_scale per column, with beta equal to alpha (QGemm scales C by alpha).
  static std::optional<Patch> match_gemm(const GraphIndex& g, size_t i) {
    const ir::Node& n = g.node(i);
    if (n.inputs.size() < 2) return std::nullopt;
    auto attr = [&](const char* name, float fallback) {
      const ir::Attribute* a = n.attribute(name);
      return a ? (a->type == ir::Attribute::Type::kFloat ? a->f : float(a->i)) : fallback;
    };
    const bool trans_b = attr("transB", 0) != 0;
    auto a = dq_of(g, n.inputs[0]);
    if (!a || !a->zero_point || !is_8bit(a->zero_point->dtype()) || a->scale->numel() != 1) return std::nullopt;
    const ir::Node* bn = g.producer_of_type(n.inputs[1], "DequantizeLinear");
    if (!bn || bn->inputs.size() < 3 || !g.constant(bn->inputs[0])) return std::nullopt;
    const Tensor* b = g.constant(bn->inputs[0]);
    const Tensor* bs = g.constant(bn->inputs[1]);
    const Tensor* bz = g.constant(bn->inputs[2]);
    if (!b || !bs || !bz || b->rank() != 2 || !is_8bit(b->dtype()) || bs->dtype() != DataType::kFloat ||
        bz->numel() != bs->numel())
      return std::nullopt;
    const int64_t cols = trans_b ? b->dim(0) : b->dim(1);
    if (bs->numel() != 1) {
      const ir::Attribute* axis = bn->attribute("axis");
      const int64_t want = trans_b ? 0 : 1;
      if (bs->numel() != cols || !axis || (axis->i != want && axis->i != want - 2)) return std::nullopt;
    }
    ir::Node out;
    out.name = g.fresh_name((n.name.empty() ? n.outputs[0] : n.name) + "_int8");
    out.op_type = "QGemm";
    out.domain = kMicrosoftDomain;
    out.inputs = {a->node->inputs[0], a->node->inputs[1], a->node->inputs[2], bn->inputs[0], bn->inputs[1], bn->inputs[2]};
    for (const char* k : {"alpha", "transA", "transB"})
      if (const ir::Attribute* v = n.attribute(k)) out.attributes[k] = *v;
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
      auto c = dq_of(g, n.inputs[2], /*axis0=*/true);
      const Tensor* cq = c ? g.constant(c->node->inputs[0]) : nullptr;
      if (!cq || cq->dtype() != DataType::kInt32 || cq->numel() != cols || (c->zero_point && !all_zero(*c->zero_point)) ||
          attr("beta", 1) != attr("alpha", 1) || (c->scale->numel() != cols && c->scale->numel() != 1))
        return std::nullopt;
      const float as = a->scale->data<float>()[0];
      for (int64_t k = 0; k < cols; ++k) {
        const double want = double(as) * bs->data<float>()[bs->numel() == 1 ? 0 : k];
        if (!near(c->scale->data<float>()[c->scale->numel() == 1 ? 0 : k], want, 1e-6)) return std::nullopt;
      }
      out.inputs.push_back(c->node->inputs[0]);
    }
    Patch p;
    p.remove_nodes = {i};
    if (auto qi = sole_q(g, n.outputs[0])) {
      const ir::Node& q = g.node(*qi);
      if (out.inputs.size() == 6) out.inputs.push_back("");
      out.inputs.insert(out.inputs.end(), {q.inputs[1], q.inputs[2]});
      out.outputs = {q.outputs[0]};
      p.remove_nodes.push_back(*qi);
    } else {
      out.outputs = {n.outputs[0]};
    }
    p.add_nodes.push_back(std::move(out));
    p.opset_imports[kMicrosoftDomain] = 1;
    return p;
  }

  static bool all_zero(const Tensor& t) {
    for (int64_t k = 0; k < t.numel(); ++k)
      if (t.get_int64(k) != 0) return false;
    return true;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kFuse, 5, QdqFusion);

}  // namespace onyx::optimizer
