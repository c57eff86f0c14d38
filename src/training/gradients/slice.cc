// Slice (opset 10+): with constant starts / ends / axes, steps of 1 and the sliced dims' sizes
// known statically, dX = dY padded with zeros back to X's shape; otherwise (any step, dims or
// bounds known only at run time) dX = SliceGrad(dY, Shape(X), starts, ends, axes, steps), onyx's
// kernel (ai.onyx.training), which writes dY where the slice read.
#include <algorithm>

#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Result<std::vector<int64_t>> constant_ints(GradientContext& ctx, size_t i) {
  const Tensor* t = i < ctx.node.inputs.size() && !ctx.node.inputs[i].empty() ? ctx.emit.initializer(ctx.node.inputs[i])
                                                                               : nullptr;
  if (!t) return not_implemented("Slice's gradient needs constant starts, ends, axes and steps");
  std::vector<int64_t> v(size_t(t->numel()));
  for (int64_t k = 0; k < t->numel(); ++k) v[size_t(k)] = t->get_int64(k);
  return v;
}

Status padded_gradient(GradientContext& ctx);

Status slice_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  if (e.opset() < 10) return not_implemented("Slice's gradient before opset 10");
  if (padded_gradient(ctx).ok()) return Status::Ok();
  std::vector<std::string> inputs{ctx.output_grads[0], e.op("Shape", {ctx.input(0)})};
  for (size_t i = 1; i < 5 && i < ctx.node.inputs.size(); ++i) inputs.push_back(ctx.node.inputs[i]);
  ctx.input_grads[0] = e.node("SliceGrad", inputs, {}, 1, "ai.onyx.training")[0];
  return Status::Ok();
}

// The Pad form, or an error saying why it does not apply (nothing is emitted then).
Status padded_gradient(GradientContext& ctx) {
  GradientEmitter& e = ctx.emit;
  const SymbolicShape& xs = e.type_of(ctx.input(0)).shape;
  if (!xs.has_rank) return not_implemented("Slice's gradient needs the input's rank known statically");
  const int64_t rank = int64_t(xs.dims.size());
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> starts, constant_ints(ctx, 1));
  ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> ends, constant_ints(ctx, 2));
  std::vector<int64_t> axes(starts.size());
  for (size_t i = 0; i < axes.size(); ++i) axes[i] = int64_t(i);
  if (ctx.node.inputs.size() > 3 && !ctx.node.inputs[3].empty()) {
    ONYX_ASSIGN_OR_RETURN(axes, constant_ints(ctx, 3));
  }
  if (ctx.node.inputs.size() > 4 && !ctx.node.inputs[4].empty()) {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> steps, constant_ints(ctx, 4));
    for (int64_t s : steps)
      if (s != 1) return not_implemented("Slice's gradient with a step other than 1");
  }
  if (starts.size() != ends.size() || axes.size() != starts.size()) return invalid_argument("Slice: inputs of different lengths");
  std::vector<int64_t> pads(size_t(2 * rank), 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t ax = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (ax < 0 || ax >= rank) return invalid_argument("Slice axis out of range");
    if (!xs.dims[size_t(ax)].value) return not_implemented("Slice's gradient needs the sliced dims' sizes known statically");
    const int64_t n = *xs.dims[size_t(ax)].value;
    int64_t s = starts[i] < 0 ? starts[i] + n : starts[i], en = ends[i] < 0 ? ends[i] + n : ends[i];
    s = std::clamp<int64_t>(s, 0, n);
    en = std::clamp<int64_t>(en, 0, n);
    pads[size_t(ax)] = s;
    pads[size_t(ax + rank)] = n - std::max(s, en);
  }
  ctx.input_grads[0] = e.op("Pad", {ctx.output_grads[0], e.int64s(pads)});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Slice", slice_gradient);
}  // namespace onyx::training
