// attention_bias_fusion (extended): the bias Adds of the Q, K and V projections move into the
// MultiHeadAttention that reads them, as its `bias` input (input 3, [D + D + Dv]):
//   MultiHeadAttention(Add(xq, bq), Add(xk, bk), Add(xv, bv), <no bias>, ...)
//     -> MultiHeadAttention(xq, xk, xv, Concat(bq, bk, bv), ...)
// The kernel adds the bias while it packs each head, so three passes over the projections go.
// Conditions: the MultiHeadAttention (com.microsoft) has no bias yet; each of its query, key
// and value is the output of an Add read by nothing else, whose other operand is a 1-D
// float32 constant; that operand's length equals the projection's known last dim, the
// projection is float32 of rank 3 (so the Add neither widened nor re-typed it), and the query
// and key biases have one length. Runs after attention_fusion, which makes the node.
#include <cstring>

#include "optimizer/fusions/fusion_util.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

struct BiasedProjection {
  size_t add = 0;          // the Add node
  std::string x;           // the projection without its bias
  const Tensor* bias = nullptr;
};

std::optional<BiasedProjection> biased_projection(const GraphIndex& g, const std::string& value) {
  if (value.empty() || !g.single_use(value)) return std::nullopt;
  auto add = g.producer(value);
  if (!add || !is_op(g.node(*add), "Add") || g.node(*add).inputs.size() != 2) return std::nullopt;
  const ir::Node& n = g.node(*add);
  for (int k = 0; k < 2; ++k) {
    const std::string& x = n.inputs[size_t(k)];
    const Tensor* b = g.constant(n.inputs[size_t(1 - k)]);
    if (!b || b->rank() != 1 || b->dtype() != DataType::kFloat) continue;
    if (g.elem_type(x) != DataType::kFloat || g.rank(x) != 3 || g.last_dim(x) != b->dim(0)) continue;
    return BiasedProjection{*add, x, b};
  }
  return std::nullopt;
}

class AttentionBiasFusion final : public RulePass {
 public:
  std::string name() const override { return "attention_bias_fusion"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext&) const override {
    const ir::Node& mha = g.node(i);
    if (mha.op_type != "MultiHeadAttention" || mha.domain != kMicrosoftDomain || mha.inputs.size() < 3)
      return std::nullopt;
    if (mha.inputs.size() > 3 && !mha.inputs[3].empty()) return std::nullopt;  // has a bias already
    BiasedProjection p[3];
    for (int k = 0; k < 3; ++k) {
      auto bp = biased_projection(g, mha.inputs[size_t(k)]);
      if (!bp) return std::nullopt;
      p[k] = *bp;
    }
    if (p[0].bias->numel() != p[1].bias->numel()) return std::nullopt;
    const int64_t dq = p[0].bias->numel(), dv = p[2].bias->numel();
    Tensor bias(DataType::kFloat, {2 * dq + dv});
    float* out = bias.data<float>();
    for (int k = 0; k < 3; ++k) {
      if (p[k].bias->numel() > 0)
        std::memcpy(out, p[k].bias->data<float>(), size_t(p[k].bias->numel()) * sizeof(float));
      out += p[k].bias->numel();
    }

    Patch patch;
    patch.remove_nodes = {p[0].add, p[1].add, p[2].add, i};
    ir::Node fused = mha;
    const std::string bias_name = g.fresh_name(mha.name.empty() ? "attention_qkv_bias" : mha.name + "_qkv_bias");
    if (fused.inputs.size() < 4) fused.inputs.resize(4);
    for (int k = 0; k < 3; ++k) fused.inputs[size_t(k)] = p[k].x;
    fused.inputs[3] = bias_name;
    patch.add_nodes.push_back(std::move(fused));
    patch.add_initializers.emplace_back(bias_name, std::move(bias));
    return patch;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kFuse, 6, AttentionBiasFusion);

}  // namespace onyx::optimizer
