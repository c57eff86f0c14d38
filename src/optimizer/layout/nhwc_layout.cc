// nhwc_layout (layout): 2-D convolutions and max pools run channels-last:
//   Conv | com.microsoft FusedConv (X, W, B, Z) -> Y
//     => Transpose(X, [0,2,3,1]) -> com.microsoft NhwcFusedConv(X', W, B, Z') -> Transpose([0,3,1,2]) -> Y
//        (Z' = Transpose(Z, [0,2,3,1]) when Z is present; W stays (M, C/group, kH, kW))
//   QLinearConv(X, x_scale, x_zp, W, ...) -> Y
//     => Transpose(X) -> com.microsoft NhwcQLinearConv(X', x_scale, x_zp, W, ...) -> Transpose -> Y
//   MaxPool(X) -> Y   => Transpose -> com.microsoft NhwcMaxPool -> Transpose -> Y
// The attributes carry over (MaxPool's storage_order, which must be 0, is dropped). The
// Transposes this adds cancel pairwise in transpose_optimization, which runs after it in the
// same phase. Conditions: X of rank 4, float32 (uint8 / int8 for QLinearConv and MaxPool); for
// a float conv, W a constant of rank 4; for QLinearConv, W and its zero point constant with
// W - zero point fitting int8 (the oneDNN path, qlinear_conv_common.h); for MaxPool, no
// Indices output, unit dilations and explicit pads smaller than the kernel (what the
// channels-last kernel computes).
#include "kernels/qlinear_conv_common.h"
#include "optimizer/fusions/fusion_util.h"
#include "optimizer/layout/layout_util.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

// True when NhwcMaxPool computes every input shape this MaxPool may see: 2-D, a window of at
// most 64 x 64, unit dilations, and each explicit pad smaller than the kernel (so that every window, including
// a last one that ceil_mode keeps, covers at least one input element).
bool pool_fits_nhwc_kernel(const ir::Node& n) {
  const ir::Attribute* k = n.attribute("kernel_shape");
  if (!k || k->ints.size() != 2) return false;
  // The windows of ordinary CNNs (up to 64 x 64); any other stays a MaxPool.
  for (int64_t v : k->ints)
    if (v < 1 || v > 64) return false;
  if (const ir::Attribute* d = n.attribute("dilations"))
    for (int64_t v : d->ints)
      if (v != 1) return false;
  const ir::Attribute* auto_pad = n.attribute("auto_pad");
  if (auto_pad && !auto_pad->s.empty() && auto_pad->s != "NOTSET") return true;  // SAME pads stay below the kernel
  if (const ir::Attribute* p = n.attribute("pads")) {
    if (p->ints.size() != 4) return false;
    for (size_t j = 0; j < 4; ++j)
      if (p->ints[j] >= k->ints[j % 2]) return false;
  }
  return true;
}

class NhwcLayout final : public RulePass {
 public:
  std::string name() const override { return "nhwc_layout"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext&) const override {
    const ir::Node& n = g.node(i);
    const bool conv = is_op(n, "Conv") || (n.op_type == "FusedConv" && n.domain == kMicrosoftDomain);
    const bool pool = is_op(n, "MaxPool");
    const bool qconv = is_op(n, "QLinearConv");
    if (qconv) return match_qlinear_conv(g, i);
    if (!conv && !pool) return std::nullopt;
    if (n.inputs.empty() || n.outputs.empty() || n.outputs[0].empty() || (conv && n.outputs.size() != 1))
      return std::nullopt;
    const std::string& x = n.inputs[0];
    const DataType xt = g.elem_type(x);
    const bool eight_bit = xt == DataType::kUInt8 || xt == DataType::kInt8;
    if (!(xt == DataType::kFloat || (pool && eight_bit)) || g.rank(x) != 4) return std::nullopt;
    if (conv) {
      if (n.inputs.size() < 2 || n.inputs.size() > 4) return std::nullopt;
      const Tensor* w = g.constant(n.inputs[1]);
      if (!w || w->rank() != 4 || w->dtype() != DataType::kFloat) return std::nullopt;
      if (n.inputs.size() == 4 && !n.inputs[3].empty() &&
          (g.elem_type(n.inputs[3]) != DataType::kFloat || g.rank(n.inputs[3]) != 4))
        return std::nullopt;
    } else {
      if (n.inputs.size() != 1) return std::nullopt;
      for (size_t k = 1; k < n.outputs.size(); ++k)
        if (!n.outputs[k].empty()) return std::nullopt;
      if (const ir::Attribute* s = n.attribute("storage_order"); s && s->i != 0) return std::nullopt;
      if (!pool_fits_nhwc_kernel(n)) return std::nullopt;
    }

    return wrap(g, i, conv ? "NhwcFusedConv" : "NhwcMaxPool", conv ? std::vector<size_t>{0, 3} : std::vector<size_t>{0});
  }

 private:
  static std::optional<Patch> match_qlinear_conv(const GraphIndex& g, size_t i) {
    const ir::Node& n = g.node(i);
    if (n.inputs.size() < 8 || n.outputs.size() != 1 || n.outputs[0].empty()) return std::nullopt;
    const DataType xt = g.elem_type(n.inputs[0]);
    if ((xt != DataType::kUInt8 && xt != DataType::kInt8) || g.rank(n.inputs[0]) != 4) return std::nullopt;
    const Tensor* w = g.constant(n.inputs[3]);
    const Tensor* w_zp = g.constant(n.inputs[5]);
    if (!w || !w_zp || w->rank() != 4 || weights_minus_zero_point(*w, *w_zp).empty()) return std::nullopt;
    return wrap(g, i, "NhwcQLinearConv", {0});
  }

  // Node i as com.microsoft `op` between Transposes: its inputs at `transposed` (those present)
  // to channels-last, its output back.
  static std::optional<Patch> wrap(const GraphIndex& g, size_t i, const std::string& op,
                                   const std::vector<size_t>& transposed) {
    const ir::Node& n = g.node(i);
    const std::string base = n.name.empty() ? n.outputs[0] : n.name;
    Patch p;
    p.remove_nodes = {i};
    ir::Node nhwc = n;
    nhwc.name = g.fresh_name(base + "_nhwc");
    nhwc.domain = kMicrosoftDomain;
    nhwc.op_type = op;
    nhwc.attributes.erase("storage_order");
    for (size_t k : transposed) {
      if (k >= n.inputs.size()) continue;
      if (n.inputs[k].empty()) continue;
      const std::string t = g.fresh_name(n.inputs[k] + "_nhwc");
      p.add_nodes.push_back(make_transpose(g.fresh_name(base + "_to_nhwc"), n.inputs[k], t, kToNhwc));
      nhwc.inputs[k] = t;
    }
    const std::string y = g.fresh_name(n.outputs[0] + "_nhwc");
    nhwc.outputs = {y};
    p.add_nodes.push_back(std::move(nhwc));
    p.add_nodes.push_back(make_transpose(g.fresh_name(base + "_to_nchw"), y, n.outputs[0], kToNchw));
    p.opset_imports[kMicrosoftDomain] = 1;
    return p;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kLayout, 10, NhwcLayout);

}  // namespace onyx::optimizer
