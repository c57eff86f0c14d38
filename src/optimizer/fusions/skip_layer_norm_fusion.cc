// skip_layer_norm_fusion (extended): the residual Add feeding a LayerNormalization over the
// last dim,
//   S = Add(input, skip); Y = LayerNormalization(S, gamma, beta)
// becomes one com.microsoft SkipLayerNormalization(input, skip, gamma, beta) -> Y. When the
// input is itself Add(M, bias) with a 1-D constant bias (the projection before the residual)
// read by nothing else, that Add joins as the fused node's bias input. When S has other
// readers (the next residual, as in BERT) or is a graph output, the fused node writes it as
// its input_skip_bias_sum output; LayerNormalization's Mean and InvStdDev map to its mean and
// inv_std_var. Conditions: gamma and beta 1-D of a known length H (the bias too); one float
// type throughout; stash_type float. Shapes need not be known: the kernel broadcasts input
// and skip as the Adds would (the input is the operand statically known to have S's shape,
// when one is).
#include "optimizer/fusions/fusion_util.h"
#include "optimizer/fusions/skip_layer_norm.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

using skip_ln::is_vector_of;
using skip_ln::shape_of;

class SkipLayerNormFusion final : public RulePass {
 public:
  std::string name() const override { return "skip_layer_norm_fusion"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext&) const override {
    const ir::Node& ln = g.node(i);
    if (!is_op(ln, "LayerNormalization") || ln.inputs.size() < 2 || ln.outputs.empty() || ln.outputs.size() > 3)
      return std::nullopt;
    if (const ir::Attribute* stash = ln.attribute("stash_type"); stash && stash->i != 1) return std::nullopt;
    const std::string& s = ln.inputs[0];
    const DataType type = g.elem_type(s);
    if (!fusable_float(type)) return std::nullopt;
    if (const ir::Attribute* axis = ln.attribute("axis"); axis && axis->i != -1) {
      const auto rank = g.rank(s);
      if (!rank || axis->i != *rank - 1) return std::nullopt;
    }
    const std::string& gamma = ln.inputs[1];
    const std::string beta = ln.inputs.size() > 2 ? ln.inputs[2] : "";
    const SymbolicShape* gamma_shape = shape_of(g, gamma);
    if (!gamma_shape || gamma_shape->dims.size() != 1 || !gamma_shape->dims[0].value) return std::nullopt;
    const int64_t h = *gamma_shape->dims[0].value;
    if (!is_vector_of(g, gamma, h, type) || (!beta.empty() && !is_vector_of(g, beta, h, type))) return std::nullopt;

    skip_ln::Norm norm;
    norm.s = s;
    norm.gamma = gamma;
    norm.beta = beta;
    norm.h = h;
    norm.type = type;
    const ir::Attribute* ln_eps = ln.attribute("epsilon");
    norm.epsilon = ln_eps ? ln_eps->f : 1e-5f;
    norm.y = ln.outputs[0];
    norm.mean = ln.outputs.size() > 1 ? ln.outputs[1] : "";
    norm.inv_std = ln.outputs.size() > 2 ? ln.outputs[2] : "";
    norm.remove = {i};
    norm.name = ln.name;
    return skip_ln::fuse(g, norm);
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kFuse, 30, SkipLayerNormFusion);

}  // namespace onyx::optimizer
