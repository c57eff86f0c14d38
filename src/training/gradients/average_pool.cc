// AveragePool: each output's gradient is spread evenly over the input positions its window
// averaged. With static spatial sizes, explicit pads and ceil_mode 0, as ordinary ops:
//   dX = ConvTranspose(dY / counts, a kernel of ones) per (N, C) plane,
// where counts is the number of elements each window divided by: the kernel size with
// count_include_pad, else the window's positions inside the input (a sum of ones, run as
// AveragePool with count_include_pad times the kernel size). Otherwise (sizes known only at
// run time, as in ORTModule's graphs; ceil_mode; auto_pad) dX = AveragePoolGrad(dY, X), onyx's
// kernel (ai.onyx.training) with the pool's attributes.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status spread_as_ops(GradientContext& ctx);

Status average_pool_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  if (spread_as_ops(ctx).ok()) return Status::Ok();
  ctx.input_grads[0] =
      ctx.emit.node("AveragePoolGrad", {ctx.output_grads[0], ctx.input(0)}, ctx.node.attributes, 1, "ai.onyx.training")[0];
  return Status::Ok();
}

// The ConvTranspose form, or an error saying why it does not apply (before emitting anything).
Status spread_as_ops(GradientContext& ctx) {
  GradientEmitter& e = ctx.emit;
  using A = GradientEmitter;
  const std::string& x = ctx.input(0);
  const DataType t = ctx.elem_type(x);
  if (t != DataType::kFloat && t != DataType::kDouble) return not_implemented("AveragePool's gradient in ", data_type_name(t));
  const SymbolicShape& xs = e.type_of(x).shape;
  const SymbolicShape& ys = e.type_of(ctx.output(0)).shape;
  if (!xs.has_rank || !ys.has_rank || xs.dims.size() < 3)
    return not_implemented("AveragePool's gradient needs the ranks of X and Y known statically");
  const size_t sp = xs.dims.size() - 2;
  if (const ir::Attribute* cm = ctx.node.attribute("ceil_mode"); cm && cm->i != 0)
    return not_implemented("AveragePool's gradient with ceil_mode 1");
  if (const ir::Attribute* ap = ctx.node.attribute("auto_pad"); ap && ap->s != "NOTSET" && !ap->s.empty())
    return not_implemented("AveragePool's gradient with auto_pad ", ap->s);
  const ir::Attribute* ks = ctx.node.attribute("kernel_shape");
  if (!ks || ks->ints.size() != sp) return invalid_argument("AveragePool without a kernel_shape of rank ", sp);
  auto ints_or = [&](const char* name, std::vector<int64_t> fallback) {
    const ir::Attribute* a = ctx.node.attribute(name);
    return a ? a->ints : fallback;
  };
  const std::vector<int64_t> kernel = ks->ints;
  const auto strides = ints_or("strides", std::vector<int64_t>(sp, 1));
  const auto dilations = ints_or("dilations", std::vector<int64_t>(sp, 1));
  const auto pads = ints_or("pads", std::vector<int64_t>(2 * sp, 0));
  if (strides.size() != sp || dilations.size() != sp || pads.size() != 2 * sp)
    return invalid_argument("AveragePool attributes of the wrong length");
  std::vector<int64_t> out_pad(sp);
  int64_t window = 1;
  for (size_t i = 0; i < sp; ++i) {
    if (!xs.dims[2 + i].value || !ys.dims[2 + i].value)
      return not_implemented("AveragePool's gradient needs the spatial sizes known statically");
    const int64_t in = *xs.dims[2 + i].value, out = *ys.dims[2 + i].value;
    out_pad[i] = in - (strides[i] * (out - 1) + (kernel[i] - 1) * dilations[i] + 1 - pads[i] - pads[sp + i]);
    if (out_pad[i] < 0 || out_pad[i] >= std::max(strides[i], dilations[i]))
      return not_implemented("AveragePool's gradient: no output_padding gives back the input size");
    window *= kernel[i];
  }
  ONYX_ASSIGN_OR_RETURN(std::string kernel_size, e.scalar(t, double(window)));
  std::string counts = kernel_size;
  const ir::Attribute* cip = ctx.node.attribute("count_include_pad");
  if (!(cip && cip->i != 0)) {  // positions inside the input: a pool of ones counting the padding, times K
    std::map<std::string, ir::Attribute> attrs = ctx.node.attributes;
    attrs["count_include_pad"] = A::int_attr("count_include_pad", 1);
    ONYX_ASSIGN_OR_RETURN(std::string one, e.scalar(t, 1.0));
    const std::string ones = e.op("Expand", {one, e.op("Shape", {x})});
    counts = e.op("Mul", {e.node("AveragePool", {ones}, attrs, 1)[0], kernel_size});
  }
  const std::string share = e.op("Div", {ctx.output_grads[0], counts});
  // One plane per (N, C): [N*C, 1, O...] through a [1, 1, k...] kernel of ones.
  std::vector<int64_t> plane_shape = {-1, 1};
  std::vector<int64_t> kernel_dims = {1, 1};
  for (size_t i = 0; i < sp; ++i) {
    plane_shape.push_back(*ys.dims[2 + i].value);
    kernel_dims.push_back(kernel[i]);
  }
  Tensor ones(t, Shape(kernel_dims.begin(), kernel_dims.end()));
  for (int64_t i = 0; i < ones.numel(); ++i) {
    if (t == DataType::kFloat) ones.data<float>()[i] = 1.f;
    else ones.data<double>()[i] = 1.0;
  }
  const std::string spread =
      e.op("ConvTranspose", {e.op("Reshape", {share, e.int64s(plane_shape)}), e.constant(std::move(ones), "pool_ones")},
           {{"strides", A::ints_attr("strides", strides)}, {"dilations", A::ints_attr("dilations", dilations)},
            {"pads", A::ints_attr("pads", pads)}, {"output_padding", A::ints_attr("output_padding", out_pad)}});
  ctx.input_grads[0] = e.op("Reshape", {spread, e.op("Shape", {x})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "AveragePool", average_pool_gradient);
}  // namespace onyx::training
