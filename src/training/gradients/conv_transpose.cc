// ConvTranspose (N-D, W's spatial sizes static; explicit pads, no output_shape): the forward
// is the transpose of a Conv that maps Y's space to X's with the same W, strides, pads,
// dilations and group, so
//   dX = Conv(dY, W) with those attributes (output_padding only adds positions no window of
//        that Conv reaches);
//   dW = ConvWeightGrad(dY, X): that Conv's weight gradient, with dY as its input and X as the
//        gradient of its output (onyx's kernel, ai.onyx.training);
//   dB = dY summed over every dim but the channels.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status conv_transpose_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const SymbolicShape& xs = e.type_of(ctx.input(0)).shape;
  const SymbolicShape& ws = e.type_of(ctx.input(1)).shape;
  if (!xs.has_rank || !ws.has_rank || xs.dims.size() < 3 || ws.dims.size() != xs.dims.size())
    return not_implemented("ConvTranspose's gradient needs the ranks of X and W known statically");
  const size_t sp = xs.dims.size() - 2;
  std::vector<int64_t> k_sp;
  for (size_t i = 0; i < sp; ++i) {
    if (!ws.dims[2 + i].value) return not_implemented("ConvTranspose's gradient needs the kernel's spatial sizes known statically");
    k_sp.push_back(*ws.dims[2 + i].value);
  }
  if (const ir::Attribute* ap = ctx.node.attribute("auto_pad"); ap && ap->s != "NOTSET" && !ap->s.empty())
    return not_implemented("ConvTranspose's gradient with auto_pad ", ap->s, " (export with explicit pads)");
  if (ctx.node.attribute("output_shape"))
    return not_implemented("ConvTranspose's gradient with output_shape (export with pads and output_padding)");
  auto ints_or = [&](const char* name, std::vector<int64_t> fallback) {
    const ir::Attribute* a = ctx.node.attribute(name);
    return a ? a->ints : fallback;
  };
  const auto strides = ints_or("strides", std::vector<int64_t>(sp, 1));
  const auto dilations = ints_or("dilations", std::vector<int64_t>(sp, 1));
  const auto pads = ints_or("pads", std::vector<int64_t>(2 * sp, 0));
  const ir::Attribute* ga = ctx.node.attribute("group");
  const int64_t group = ga ? ga->i : 1;
  if (strides.size() != sp || dilations.size() != sp || pads.size() != 2 * sp)
    return invalid_argument("ConvTranspose attributes of the wrong length");
  using A = GradientEmitter;
  std::map<std::string, ir::Attribute> geometry{{"strides", A::ints_attr("strides", strides)},
                                                {"dilations", A::ints_attr("dilations", dilations)},
                                                {"pads", A::ints_attr("pads", pads)},
                                                {"group", A::int_attr("group", group)}};
  if (ctx.needs_grad[0]) ctx.input_grads[0] = e.op("Conv", {dy, ctx.input(1)}, geometry);
  if (ctx.needs_grad[1]) {
    auto attributes = geometry;
    attributes["kernel_shape"] = A::ints_attr("kernel_shape", k_sp);
    ctx.input_grads[1] = e.node("ConvWeightGrad", {dy, ctx.input(0)}, std::move(attributes), 1, "ai.onyx.training")[0];
  }
  if (ctx.node.inputs.size() > 2 && ctx.needs_grad[2]) {
    std::vector<int64_t> axes = {0};
    for (size_t i = 0; i < sp; ++i) axes.push_back(int64_t(2 + i));
    ctx.input_grads[2] = e.reduce_sum(dy, axes, false);
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "ConvTranspose", conv_transpose_gradient);
}  // namespace onyx::training
