// constant_folding (basic): one walk over the graph in order that
//   - computes every node of the default domain whose inputs are all constant initializers
//     (or values folded earlier in the walk) with the CPU kernel the planner would use;
//   - answers shape queries (Shape, Size, Gather of Shape; shape_query.h) from static types;
//   - re-runs the op's static rule on every node it keeps, with the constants found so far,
//     so types sharpen as it goes (a Reshape whose shape input just folded has a known shape
//     for the Shape read after it): a Shape -> Gather -> Unsqueeze -> Concat -> Reshape chain
//     collapses in one walk, layer after layer.
// Folded outputs become initializers. Left alone: Constant (constant_to_initializer), nodes
// with subgraphs, nodes with no inputs, random or training-mode ops (RandomNormal(Like),
// RandomUniform(Like), Multinomial, Bernoulli, Dropout), DequantizeLinear (quantized weights
// stay small), outputs that are not all tensors, and results too large: more than
// kMaxFoldElements elements in all unless no larger than the node's inputs together. The size
// must be known before running: from the static types, or because the op never outputs more
// elements than its inputs hold (a listed shrinking op; checked again after). A kernel that
// refuses the inputs leaves the node to fail at run as it would have. Also left: a Transpose of
// a large shared weight read only as MatMuls' B (duplicates_shared_weight).
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "core/guard.h"
#include "ops/op_rule.h"
#include "optimizer/evaluate.h"
#include "optimizer/pass.h"
#include "optimizer/simplify/shape_query.h"

namespace onyx::optimizer {
namespace {

constexpr int64_t kMaxFoldElements = int64_t(1) << 20;

const std::set<std::string> kNeverFold = {"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike",
                                          "Multinomial", "Bernoulli", "Dropout", "DequantizeLinear", "Constant"};

// Ops whose outputs together never hold more elements than their inputs.
const std::set<std::string> kShrinking = {
    "Cast", "CastLike", "Transpose", "Reshape", "Squeeze", "Unsqueeze", "Flatten", "Identity", "Slice", "Concat",
    "Shape", "Size", "Neg", "Abs", "Sqrt", "Reciprocal", "Exp", "Log", "Relu", "Sigmoid", "Tanh", "Erf", "Floor",
    "Ceil", "Round", "Not", "Sign", "Softmax", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
    "ArgMax", "ArgMin", "Split"};

ir::TypeInfo type_of_tensor(const Tensor& t) {
  ir::TypeInfo type;
  type.kind = ir::TypeInfo::Kind::kTensor;
  type.elem_type = t.dtype();
  type.shape = ops::known_shape(t.shape());
  return type;
}

// `rule` where it says something, the unknown parts filled from `old` when both are tensors
// of one rank.
ir::TypeInfo sharpen(ir::TypeInfo rule, const ir::TypeInfo* old) {
  if (!old) return rule;
  if (rule.kind == ir::TypeInfo::Kind::kUnknown) return *old;
  if (rule.kind != ir::TypeInfo::Kind::kTensor || old->kind != ir::TypeInfo::Kind::kTensor) return rule;
  if (rule.elem_type == DataType::kUndefined) rule.elem_type = old->elem_type;
  if (!rule.shape.has_rank) {
    rule.shape = old->shape;
  } else if (old->shape.has_rank && old->shape.dims.size() == rule.shape.dims.size()) {
    for (size_t d = 0; d < rule.shape.dims.size(); ++d)
      if (!rule.shape.dims[d].value && (rule.shape.dims[d].symbol.empty() || old->shape.dims[d].value))
        rule.shape.dims[d] = old->shape.dims[d];
  }
  return rule;
}

class ConstantFolding final : public Pass {
 public:
  std::string name() const override { return "constant_folding"; }

  Result<bool> run(PassContext& ctx) const override {
    ir::Graph& graph = ctx.model.graph;
    GraphIndex g(graph, &ctx.types);
    std::unordered_map<std::string, ir::TypeInfo> types = ctx.types.all;
    std::map<std::string, Tensor> folded;  // stable addresses
    auto constant_of = [&](const std::string& v) -> const Tensor* {
      if (v.empty()) return nullptr;
      auto f = folded.find(v);
      return f != folded.end() ? &f->second : g.constant(v);
    };
    auto type_of = [&](const std::string& v) -> const ir::TypeInfo* {
      auto it = types.find(v);
      return it == types.end() ? nullptr : &it->second;
    };
    auto producer_of = [&](const std::string& v) -> const ir::Node* {
      auto p = g.producer(v);
      return p && !folded.count(v) ? &graph.nodes[*p] : nullptr;
    };

    Patch patch;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      const ir::Node& n = graph.nodes[i];
      std::optional<std::vector<Tensor>> values;
      if (std::optional<Tensor> q = fold_shape_query(n, type_of, constant_of, producer_of)) {
        values.emplace();
        values->push_back(std::move(*q));
      } else {
        values = evaluate(g, n, ctx.opset(n), constant_of, type_of);
      }
      if (values) {
        for (size_t k = 0; k < n.outputs.size(); ++k) {
          if (n.outputs[k].empty()) continue;
          types[n.outputs[k]] = type_of_tensor((*values)[k]);
          folded.emplace(n.outputs[k], (*values)[k]);
        }
        patch.remove_nodes.push_back(i);
        continue;
      }
      infer(n, ctx.opset(n), types, constant_of);
    }
    if (patch.remove_nodes.empty()) return false;
    for (const auto& i : patch.remove_nodes)
      for (const auto& o : graph.nodes[i].outputs)
        if (!o.empty()) patch.add_initializers.emplace_back(o, folded.at(o));
    ONYX_RETURN_IF_ERROR(apply_patch(graph, std::move(patch)));
    return true;
  }

 private:
  // True for Transpose(W) of the last two dims of a large W (over kMaxFoldElements) that other
  // nodes also read, when only MatMuls read the result, as their B: a tied embedding / output
  // projection, as torch's dynamo export writes GPT-2's lm_head. Folding would keep a
  // transposed copy of W beside W; matmul_transpose_fusion makes the product a FusedMatMul
  // with transB instead, which packs W as stored.
  static bool duplicates_shared_weight(const GraphIndex& g, const ir::Node& n, int64_t input_elements) {
    if (n.op_type != "Transpose" || n.inputs.size() != 1 || n.outputs.size() != 1 || input_elements <= kMaxFoldElements ||
        g.consumers(n.inputs[0]).size() < 2 || g.is_graph_output(n.outputs[0]) || g.is_captured(n.outputs[0]) ||
        g.consumers(n.outputs[0]).empty())
      return false;
    const ir::Attribute* perm = n.attribute("perm");
    const Tensor* w = g.constant(n.inputs[0]);
    const std::optional<int64_t> rank = w ? std::optional<int64_t>(w->rank()) : g.rank(n.inputs[0]);
    if (!rank || *rank < 2 || (perm && int64_t(perm->ints.size()) != *rank)) return false;
    for (int64_t k = 0; k < *rank; ++k) {  // no perm: the dims reversed
      const int64_t want = k == *rank - 2 ? *rank - 1 : k == *rank - 1 ? *rank - 2 : k;
      if ((perm ? perm->ints[size_t(k)] : *rank - 1 - k) != want) return false;
    }
    for (size_t c : g.consumers(n.outputs[0])) {
      const ir::Node& m = g.node(c);
      if (m.op_type != "MatMul" || !m.domain.empty() || m.inputs.size() != 2 || m.inputs[1] != n.outputs[0] ||
          m.inputs[0] == n.outputs[0])
        return false;
    }
    return true;
  }

  // The node's outputs computed by its kernel (one per output, undefined for omitted ones)
  // when it may be folded; nullopt otherwise.
  template <typename ConstantOf, typename TypeOf>
  static std::optional<std::vector<Tensor>> evaluate(const GraphIndex& g, const ir::Node& n, int64_t opset,
                                                     const ConstantOf& constant_of, const TypeOf& type_of) {
    if (!n.domain.empty() || n.inputs.empty() || kNeverFold.count(n.op_type) || has_subgraph(n)) return std::nullopt;
    std::vector<const Tensor*> inputs;
    int64_t input_elements = 0;
    bool any = false;
    for (const auto& in : n.inputs) {
      const Tensor* t = constant_of(in);
      if (!in.empty() && !t) return std::nullopt;
      if (t) {
        any = true;
        input_elements += t->numel();
      }
      inputs.push_back(t);
    }
    if (!any) return std::nullopt;
    if (duplicates_shared_weight(g, n, input_elements)) return std::nullopt;
    bool needed = false;
    for (const auto& o : n.outputs) needed = needed || (!o.empty() && !g.unused(o));
    if (!needed) return std::nullopt;  // dead_node_elimination's job
    const int64_t limit = std::max(kMaxFoldElements, input_elements);
    if (!kShrinking.count(n.op_type)) {
      int64_t total = 0;
      for (const auto& o : n.outputs) {
        if (o.empty()) continue;
        const ir::TypeInfo* t = type_of(o);
        if (!t || t->kind != ir::TypeInfo::Kind::kTensor || !t->shape.has_rank) return std::nullopt;
        int64_t size = 1;
        for (const Dim& d : t->shape.dims) {
          if (!d.value || *d.value < 0) return std::nullopt;
          // A hostile model's static dims may be near 2^63: the product must not overflow.
          if (__builtin_mul_overflow(size, std::max<int64_t>(*d.value, 1), &size) || size > limit) return std::nullopt;
        }
        if ((total += size) > limit) return std::nullopt;
      }
    }
    auto values = evaluate_node(n, opset, inputs);
    if (!values.ok()) return std::nullopt;
    std::vector<Tensor> out(n.outputs.size());
    int64_t total = 0;
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k].empty()) continue;
      const Value& v = (*values)[k];
      if (!v.is_tensor() || (total += v.tensor().numel()) > limit) return std::nullopt;
      out[k] = v.tensor();
    }
    return out;
  }

  // Re-derives the types of a kept node's outputs from its rule, with the constants known now.
  template <typename ConstantOf>
  static void infer(const ir::Node& n, int64_t opset, std::unordered_map<std::string, ir::TypeInfo>& types,
                    const ConstantOf& constant_of) {
    const ops::OpRule* rule = opset > 0 ? ops::OpRuleRegistry::global().find(n.domain, n.op_type, opset) : nullptr;
    if (!rule) return;
    std::vector<const ir::TypeInfo*> input_types;
    std::vector<const Tensor*> constants;
    bool any_constant = false;
    for (const auto& in : n.inputs) {
      auto it = in.empty() ? types.end() : types.find(in);
      input_types.push_back(it == types.end() ? nullptr : &it->second);
      constants.push_back(constant_of(in));
      any_constant = any_constant || constants.back();
    }
    ops::InferenceContext ictx(n, opset, std::move(input_types), std::move(constants));
    if (!guarded("static rule", [&] { return rule->infer(ictx); }).ok()) return;  // as infer_graph does
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k].empty()) continue;
      auto it = types.find(n.outputs[k]);
      types[n.outputs[k]] = sharpen(ictx.output_types()[k], it == types.end() ? nullptr : &it->second);
    }
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kSimplify, 30, ConstantFolding);

}  // namespace onyx::optimizer
