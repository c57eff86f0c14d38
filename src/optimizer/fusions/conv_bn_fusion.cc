// conv_bn_fusion (extended): a BatchNormalization in inference mode whose input is a Conv's
// output (read by nothing else) folds into the Conv:
//   k = scale / sqrt(var + epsilon)   (per output channel m)
//   W'[m] = W[m] * k[m],  B'[m] = (B[m] - mean[m]) * k[m] + bias[m]   (B = 0 when absent)
// Conditions: W, the Conv's B and the four BN parameters are constant initializers with one
// value per output channel; W is float32, float16 or double (computed in double, stored in
// W's type); BN has only its Y output (opset < 14), training_mode 0 (opset >= 14) and
// spatial (opset < 9). The new weights are new initializers (W may be shared).
#include <cmath>

#include "kernels/dispatch.h"
#include "optimizer/fusions/fusion_util.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

class ConvBnFusion final : public RulePass {
 public:
  std::string name() const override { return "conv_bn_fusion"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext& ctx) const override {
    const ir::Node& bn = g.node(i);
    if (!is_op(bn, "BatchNormalization") || bn.inputs.size() != 5 || bn.outputs.empty() || bn.outputs[0].empty())
      return std::nullopt;
    const int64_t opset = ctx.opset(bn);
    for (size_t k = 1; k < bn.outputs.size(); ++k)
      if (!bn.outputs[k].empty()) return std::nullopt;
    if (const ir::Attribute* t = bn.attribute("training_mode"); t && t->i != 0) return std::nullopt;
    if (const ir::Attribute* s = bn.attribute("spatial"); opset < 9 && s && s->i == 0) return std::nullopt;
    auto c = g.producer(bn.inputs[0]);
    if (!c || !is_op(g.node(*c), "Conv") || !g.single_use(bn.inputs[0])) return std::nullopt;
    const ir::Node& conv = g.node(*c);
    if (conv.inputs.size() < 2 || conv.outputs.size() != 1) return std::nullopt;
    const Tensor* w = g.constant(conv.inputs[1]);
    if (!w || w->rank() < 2) return std::nullopt;
    const DataType type = w->dtype();
    if (type != DataType::kFloat && type != DataType::kFloat16 && type != DataType::kDouble) return std::nullopt;
    const int64_t m = w->dim(0);
    const Tensor* b = conv.inputs.size() > 2 && !conv.inputs[2].empty() ? g.constant(conv.inputs[2]) : nullptr;
    if (conv.inputs.size() > 2 && !conv.inputs[2].empty() && (!b || b->numel() != m)) return std::nullopt;
    const Tensor* params[4];
    for (int k = 0; k < 4; ++k) {
      params[k] = g.constant(bn.inputs[size_t(k + 1)]);
      if (!params[k] || params[k]->numel() != m || !is_float_type(params[k]->dtype())) return std::nullopt;
    }
    const ir::Attribute* eps_attr = bn.attribute("epsilon");
    const double eps = eps_attr ? eps_attr->f : 1e-5;

    std::vector<double> k(static_cast<size_t>(m)), bias(static_cast<size_t>(m));
    for (int64_t j = 0; j < m; ++j) {
      k[size_t(j)] = params[0]->get_double(j) / std::sqrt(params[3]->get_double(j) + eps);
      bias[size_t(j)] = ((b ? b->get_double(j) : 0.0) - params[2]->get_double(j)) * k[size_t(j)] + params[1]->get_double(j);
    }
    Tensor w2(type, w->shape());
    Tensor b2(type, {m});
    const int64_t per_channel = m > 0 ? w->numel() / m : 0;
    Status st = dispatch<float, Float16, double>(type, [&]<typename T>() -> Status {
      const T* src = w->data<T>();
      T* dst = w2.data<T>();
      for (int64_t j = 0; j < m; ++j) {
        for (int64_t e = 0; e < per_channel; ++e)
          dst[j * per_channel + e] = T(double(src[j * per_channel + e]) * k[size_t(j)]);
        b2.data<T>()[j] = T(bias[size_t(j)]);
      }
      return Status::Ok();
    });
    if (!st.ok()) return std::nullopt;

    Patch p;
    p.remove_nodes = {*c, i};
    ir::Node fused = conv;
    const std::string base = conv.name.empty() ? bn.outputs[0] : conv.name;
    const std::string w_name = g.fresh_name(base + "_bn_W");
    const std::string b_name = g.fresh_name(base + "_bn_B");
    fused.inputs = {conv.inputs[0], w_name, b_name};
    fused.outputs = {bn.outputs[0]};
    p.add_nodes.push_back(std::move(fused));
    p.add_initializers.emplace_back(w_name, std::move(w2));
    p.add_initializers.emplace_back(b_name, std::move(b2));
    return p;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kFuse, 40, ConvBnFusion);

}  // namespace onyx::optimizer
