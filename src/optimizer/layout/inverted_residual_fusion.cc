// inverted_residual_fusion (layout phase, level 99: it writes an onyx-only op): MobileNetV2's
// block, three channels-last convolutions, becomes one node that computes it in cache-sized
// bands (kernels/cpu/inverted_residual.cc):
//
//   NhwcFusedConv 1x1 (X, We, Be)            -> M      (the expansion; optional)
//   NhwcFusedConv depthwise (M, Wd, Bd)      -> D
//   NhwcFusedConv 1x1 (D, Wp, Bp, Z)         -> Y
//     => ai.onyx InvertedResidual(X, We, Be, Wd, Bd, Wp, Bp, Z) -> Y
//
// Only blocks whose expanded tensor, for one image, exceeds the banding size
// (kernels/inverted_residual.h: 1 MB) are fused, and so X's shape must be known: the early,
// large blocks, where the bands keep the tensor out of memory; smaller blocks run faster as
// oneDNN's three convolutions.
// Conditions: float32, every weight a constant of rank 4; the 1x1 convolutions with one
// group, unit strides and dilations and no pads; the depthwise one with group = channels =
// its weight's first dim, weight (C, 1, kh, kw), unit dilations and explicit pads (no
// auto_pad); M and D read by the next stage alone and not graph outputs; no residual on the
// first two stages; activations none, Relu or Clip on the depthwise stage, any but
// HardSigmoid on the others. Each stage's activation moves to a prefixed attribute
// (expand_activation, depthwise_activation, project_activation, with their _params).
#include "kernels/inverted_residual.h"
#include "optimizer/fusions/fusion_util.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

constexpr const char* kOnyxDomain = "ai.onyx";

bool all_equal(const ir::Node& n, const char* name, int64_t value) {
  const ir::Attribute* a = n.attribute(name);
  if (!a) return true;
  for (int64_t v : a->ints)
    if (v != value) return false;
  return true;
}

int64_t group_of(const ir::Node& n) {
  const ir::Attribute* a = n.attribute("group");
  return a ? a->i : 1;
}

bool explicit_pads(const ir::Node& n) {
  const ir::Attribute* a = n.attribute("auto_pad");
  return !a || a->s.empty() || a->s == "NOTSET";
}

std::string activation_of(const ir::Node& n) {
  const ir::Attribute* a = n.attribute("activation");
  return a ? a->s : std::string();
}

// A channels-last float32 convolution with a constant rank-4 weight and no residual (unless
// `residual_ok`); its weight, or null.
const Tensor* nhwc_conv_weight(const GraphIndex& g, const ir::Node& n, bool residual_ok) {
  if (n.op_type != "NhwcFusedConv" || n.domain != kMicrosoftDomain || n.outputs.size() != 1) return nullptr;
  if (n.inputs.size() < 2 || n.inputs.size() > 4) return nullptr;
  if (!residual_ok && n.inputs.size() == 4 && !n.inputs[3].empty()) return nullptr;
  if (g.elem_type(n.inputs[0]) != DataType::kFloat) return nullptr;
  const Tensor* w = g.constant(n.inputs[1]);
  if (!w || w->dtype() != DataType::kFloat || w->rank() != 4) return nullptr;
  if (!all_equal(n, "dilations", 1) || !explicit_pads(n)) return nullptr;
  if (const ir::Attribute* k = n.attribute("kernel_shape");
      k && (k->ints.size() != 2 || k->ints[0] != w->dim(2) || k->ints[1] != w->dim(3)))
    return nullptr;
  if (activation_of(n) == "HardSigmoid") return nullptr;
  return w;
}

// A 1x1 convolution of one group, unit strides and no pads.
const Tensor* pointwise_weight(const GraphIndex& g, const ir::Node& n, bool residual_ok) {
  const Tensor* w = nhwc_conv_weight(g, n, residual_ok);
  if (!w || w->dim(2) != 1 || w->dim(3) != 1 || group_of(n) != 1) return nullptr;
  if (!all_equal(n, "strides", 1) || !all_equal(n, "pads", 0)) return nullptr;
  return w;
}

// The producer of `value` when it is a node that only `value`'s one reader reads.
const ir::Node* sole_producer(const GraphIndex& g, const std::string& value) {
  auto p = g.producer(value);
  if (!p || !g.single_use(value) || g.is_graph_output(value) || g.is_captured(value)) return nullptr;
  return &g.node(*p);
}

// A rank-4 channels-last value's dims with H, W and C known (N reads 0 when symbolic).
std::optional<std::vector<int64_t>> image_dims(const GraphIndex& g, const std::string& name) {
  const ir::TypeInfo* t = g.type(name);
  if (!t || t->kind != ir::TypeInfo::Kind::kTensor || !t->shape.has_rank || t->shape.dims.size() != 4) return std::nullopt;
  std::vector<int64_t> dims(4, 0);
  for (size_t d = 1; d < 4; ++d) {
    const auto& v = t->shape.dims[d].value;
    if (!v || *v <= 0) return std::nullopt;
    dims[d] = *v;
  }
  return dims;
}

std::vector<int64_t> int_list(const ir::Node& n, const char* name, std::vector<int64_t> fallback) {
  const ir::Attribute* a = n.attribute(name);
  return a ? a->ints : fallback;
}

// Moves `n`'s activation attributes to prefix + name on `fused`.
void move_activation(const ir::Node& n, const std::string& prefix, ir::Node& fused) {
  for (const char* name : {"activation", "activation_params"}) {
    const ir::Attribute* a = n.attribute(name);
    if (!a) continue;
    ir::Attribute moved = *a;
    moved.name = prefix + name;
    fused.attributes[moved.name] = moved;
  }
}

class InvertedResidualFusion final : public RulePass {
 public:
  std::string name() const override { return "inverted_residual_fusion"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext&) const override {
    const ir::Node& project = g.node(i);
    const Tensor* wp = pointwise_weight(g, project, /*residual_ok=*/true);
    if (!wp) return std::nullopt;
    const ir::Node* depthwise = sole_producer(g, project.inputs[0]);
    if (!depthwise) return std::nullopt;
    const Tensor* wd = nhwc_conv_weight(g, *depthwise, false);
    if (!wd || wd->dim(1) != 1 || group_of(*depthwise) != wd->dim(0) || wp->dim(1) != wd->dim(0)) return std::nullopt;
    const std::string act = activation_of(*depthwise);
    if (!(act.empty() || act == "Relu" || act == "Clip")) return std::nullopt;
    if (const ir::Attribute* pads = depthwise->attribute("pads"); pads && pads->ints.size() != 4) return std::nullopt;
    if (const ir::Attribute* s = depthwise->attribute("strides"); s && s->ints.size() != 2) return std::nullopt;
    // Only blocks the kernel computes in bands (smaller ones run faster as three convolutions):
    // the depthwise input's height, width and channels must be known (the batch may be symbolic).
    const std::optional<std::vector<int64_t>> m_shape = image_dims(g, depthwise->inputs[0]);
    if (!m_shape || (*m_shape)[3] != wd->dim(0)) return std::nullopt;
    const std::vector<int64_t> strides = int_list(*depthwise, "strides", {1, 1});
    const std::vector<int64_t> pads = int_list(*depthwise, "pads", {0, 0, 0, 0});
    // Bounds that keep the arithmetic below far from overflow (strides and pads up to 2^20,
    // images up to 2^24 a side); the kernel checks the attributes as Conv does.
    constexpr int64_t kMaxWindow = int64_t(1) << 20, kMaxSide = int64_t(1) << 24;
    for (int64_t v : strides)
      if (v < 1 || v > kMaxWindow) return std::nullopt;
    for (int64_t v : pads)
      if (v < 0 || v > kMaxWindow) return std::nullopt;
    if ((*m_shape)[1] > kMaxSide || (*m_shape)[2] > kMaxSide || wd->dim(2) > kMaxWindow || wd->dim(3) > kMaxWindow)
      return std::nullopt;
    const int64_t span_h = (*m_shape)[1] + pads[0] + pads[2] - wd->dim(2);
    const int64_t span_w = (*m_shape)[2] + pads[1] + pads[3] - wd->dim(3);
    if (span_h < 0 || span_w < 0) return std::nullopt;
    const int64_t out_pixels = (span_h / strides[0] + 1) * (span_w / strides[1] + 1);
    if (!inverted_residual_in_bands((*m_shape)[1] * (*m_shape)[2], out_pixels, wd->dim(0))) return std::nullopt;

    const ir::Node* expand = sole_producer(g, depthwise->inputs[0]);
    const Tensor* we = expand ? pointwise_weight(g, *expand, false) : nullptr;
    if (we && we->dim(0) != wd->dim(0)) we = nullptr;
    if (!we) expand = nullptr;

    auto input = [](const ir::Node& n, size_t k) { return k < n.inputs.size() ? n.inputs[k] : std::string(); };
    Patch p;
    ir::Node fused;
    fused.name = g.fresh_name(project.name.empty() ? "InvertedResidual" : project.name + "_block");
    fused.op_type = "InvertedResidual";
    fused.domain = kOnyxDomain;
    fused.inputs = {expand ? expand->inputs[0] : depthwise->inputs[0],
                    expand ? expand->inputs[1] : std::string(),
                    expand ? input(*expand, 2) : std::string(),
                    depthwise->inputs[1],
                    input(*depthwise, 2),
                    project.inputs[1],
                    input(project, 2),
                    input(project, 3)};
    while (!fused.inputs.empty() && fused.inputs.back().empty()) fused.inputs.pop_back();
    fused.outputs = project.outputs;
    for (const char* attr : {"strides", "pads"})
      if (const ir::Attribute* a = depthwise->attribute(attr)) fused.attributes[attr] = *a;
    if (expand) move_activation(*expand, "expand_", fused);
    move_activation(*depthwise, "depthwise_", fused);
    move_activation(project, "project_", fused);
    if (expand) p.remove_nodes.push_back(*g.producer(depthwise->inputs[0]));
    p.remove_nodes.push_back(*g.producer(project.inputs[0]));
    p.remove_nodes.push_back(i);
    p.add_nodes.push_back(std::move(fused));
    p.opset_imports[kOnyxDomain] = 1;
    return p;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kLayout, 25, InvertedResidualFusion);

}  // namespace onyx::optimizer
