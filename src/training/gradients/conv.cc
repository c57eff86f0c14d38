// Conv (N-D, W's spatial sizes static; explicit pads or auto_pad NOTSET):
//   dX = ConvTranspose(dY, W) with the forward strides, dilations, pads and group, and the
//        output_padding that gives back X's spatial size; where X's or Y's spatial sizes are
//        known only at run time (ORTModule's dynamic dims), cropped at the begin pads only,
//        then fitted to X's shape at run time (zeros where no window read, the end pads cut);
//   dW = ConvWeightGrad(X, dY) (onyx's kernel, ai.onyx.training: im2col and GEMM, any group);
//   dB = dY summed over every dim but the channels.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

std::vector<int64_t> ints_or(const ir::Node& n, const char* name, std::vector<int64_t> fallback) {
  const ir::Attribute* a = n.attribute(name);
  return a ? a->ints : fallback;
}

Status conv_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const SymbolicShape& xs = e.type_of(ctx.input(0)).shape;
  const SymbolicShape& ws = e.type_of(ctx.input(1)).shape;
  const SymbolicShape& ys = e.type_of(ctx.output(0)).shape;
  if (!xs.has_rank || !ws.has_rank || !ys.has_rank || xs.dims.size() < 3)
    return not_implemented("Conv's gradient needs the ranks of X, W and Y known statically");
  const size_t sp = xs.dims.size() - 2;
  std::vector<int64_t> x_sp, k_sp, y_sp;
  bool static_sizes = true;
  for (size_t i = 0; i < sp; ++i) {
    if (ws.dims.size() != xs.dims.size() || !ws.dims[2 + i].value)
      return not_implemented("Conv's gradient needs the kernel's spatial sizes known statically");
    k_sp.push_back(*ws.dims[2 + i].value);
    static_sizes = static_sizes && ys.dims.size() == xs.dims.size() && xs.dims[2 + i].value && ys.dims[2 + i].value;
    if (static_sizes) {
      x_sp.push_back(*xs.dims[2 + i].value);
      y_sp.push_back(*ys.dims[2 + i].value);
    }
  }
  if (const ir::Attribute* ap = ctx.node.attribute("auto_pad"); ap && ap->s != "NOTSET" && !ap->s.empty())
    return not_implemented("Conv's gradient with auto_pad ", ap->s, " (export with explicit pads)");
  const auto strides = ints_or(ctx.node, "strides", std::vector<int64_t>(sp, 1));
  const auto dilations = ints_or(ctx.node, "dilations", std::vector<int64_t>(sp, 1));
  const auto pads = ints_or(ctx.node, "pads", std::vector<int64_t>(2 * sp, 0));
  const ir::Attribute* ga = ctx.node.attribute("group");
  const int64_t group = ga ? ga->i : 1;
  if (strides.size() != sp || dilations.size() != sp || pads.size() != 2 * sp)
    return invalid_argument("Conv attributes of the wrong length");
  using A = GradientEmitter;
  if (ctx.needs_grad[0] && !static_sizes) {
    // Cropped at the begin pads only: the transposed product then spans X's positions up to
    // the last one a window reads, and any end pad the windows reached.
    std::vector<int64_t> begin_pads(pads.begin(), pads.begin() + std::ptrdiff_t(sp));
    begin_pads.resize(2 * sp, 0);
    const std::string raw = e.op("ConvTranspose", {dy, ctx.input(1)},
                                 {{"strides", A::ints_attr("strides", strides)},
                                  {"dilations", A::ints_attr("dilations", dilations)},
                                  {"pads", A::ints_attr("pads", begin_pads)}, {"group", A::int_attr("group", group)}});
    // Fitted to X: zeros appended where no window read (max(X - raw, 0) at the end of each
    // dim), then the end pad's positions cut off (Slice to X's shape).
    const std::string x_shape = e.op("Shape", {ctx.input(0)});
    const std::string short_by = e.op("Max", {e.op("Sub", {x_shape, e.op("Shape", {raw})}), e.int64s({0})});
    const std::string pads_input = e.op("Concat", {e.int64s(std::vector<int64_t>(sp + 2, 0)), short_by},
                                        {{"axis", A::int_attr("axis", 0)}});
    const std::string padded = e.op("Pad", {raw, pads_input});
    ctx.input_grads[0] = e.op("Slice", {padded, e.int64s(std::vector<int64_t>(sp + 2, 0)), x_shape});
  } else if (ctx.needs_grad[0]) {
    std::vector<int64_t> out_pad(sp);
    for (size_t i = 0; i < sp; ++i) {
      out_pad[i] = x_sp[i] - (strides[i] * (y_sp[i] - 1) + (k_sp[i] - 1) * dilations[i] + 1 - pads[i] - pads[sp + i]);
      if (out_pad[i] < 0 || out_pad[i] >= std::max(strides[i], dilations[i]))
        return not_implemented("Conv's gradient: no output_padding gives back the input size");
    }
    ctx.input_grads[0] = e.op("ConvTranspose", {dy, ctx.input(1)},
                              {{"strides", A::ints_attr("strides", strides)}, {"dilations", A::ints_attr("dilations", dilations)},
                               {"pads", A::ints_attr("pads", pads)}, {"group", A::int_attr("group", group)},
                               {"output_padding", A::ints_attr("output_padding", out_pad)}});
  }
  if (ctx.needs_grad[1]) {
    ctx.input_grads[1] = e.node("ConvWeightGrad", {ctx.input(0), dy},
                                {{"kernel_shape", A::ints_attr("kernel_shape", k_sp)},
                                 {"strides", A::ints_attr("strides", strides)},
                                 {"dilations", A::ints_attr("dilations", dilations)},
                                 {"pads", A::ints_attr("pads", pads)}, {"group", A::int_attr("group", group)}},
                                1, "ai.onyx.training")[0];
  }
  if (ctx.node.inputs.size() > 2 && ctx.needs_grad[2]) {
    std::vector<int64_t> axes = {0};
    for (size_t i = 0; i < sp; ++i) axes.push_back(int64_t(2 + i));
    ctx.input_grads[2] = e.reduce_sum(dy, axes, false);
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Conv", conv_gradient);
}  // namespace onyx::training
