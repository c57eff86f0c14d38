// constant_folding (basic): a node of the default domain whose inputs are all constant
// initializers is computed once, with the CPU kernel the planner would use, and its outputs
// become initializers. Left alone: Constant (constant_to_initializer), nodes with subgraphs,
// nodes with no inputs, random or training-mode ops (RandomNormal(Like), RandomUniform(Like),
// Multinomial, Bernoulli, Dropout), DequantizeLinear (quantized weights stay small), outputs
// that are not all tensors, and results too large: more than kMaxFoldElements elements in
// all unless no larger than the node's inputs together. The size must be known before
// running: from the static types, or because the op never outputs more elements than its
// inputs hold (a listed shrinking op; checked again after). A kernel that refuses the inputs
// leaves the node to fail at run as it would have.
#include <algorithm>
#include <set>

#include "optimizer/evaluate.h"
#include "optimizer/pass.h"

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
    "ArgMax", "ArgMin", "Split", "NonZero"};

class ConstantFolding final : public RulePass {
 public:
  std::string name() const override { return "constant_folding"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext& ctx) const override {
    const ir::Node& n = g.node(i);
    if (!n.domain.empty() || n.inputs.empty() || kNeverFold.count(n.op_type) || has_subgraph(n)) return std::nullopt;
    std::vector<const Tensor*> inputs;
    int64_t input_elements = 0;
    bool any = false;
    for (const auto& in : n.inputs) {
      const Tensor* t = in.empty() ? nullptr : g.constant(in);
      if (!in.empty() && !t) return std::nullopt;
      if (t) {
        any = true;
        input_elements += t->numel();
      }
      inputs.push_back(t);
    }
    if (!any) return std::nullopt;
    bool needed = false;
    for (const auto& o : n.outputs) needed = needed || (!o.empty() && !g.unused(o));
    if (!needed) return std::nullopt;  // dead_node_elimination's job
    const int64_t limit = std::max(kMaxFoldElements, input_elements);
    if (!kShrinking.count(n.op_type)) {
      int64_t total = 0;
      for (const auto& o : n.outputs) {
        if (o.empty()) continue;
        auto shape = g.shape(o);
        if (!shape) return std::nullopt;
        const int64_t size = shape_size(*shape);
        if (size < 0 || (total += size) > limit) return std::nullopt;
      }
    }
    auto values = evaluate_node(n, ctx.opset(n), inputs);
    if (!values.ok()) return std::nullopt;
    Patch p;
    p.remove_nodes = {i};
    int64_t total = 0;
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k].empty()) continue;
      const Value& v = (*values)[k];
      if (!v.is_tensor()) return std::nullopt;
      if ((total += v.tensor().numel()) > limit) return std::nullopt;
      p.add_initializers.emplace_back(n.outputs[k], v.tensor());
    }
    return p;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kSimplify, 30, ConstantFolding);

}  // namespace onyx::optimizer
