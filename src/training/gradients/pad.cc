// Pad in constant mode: dX = dY with the padding sliced off (and, where a pad was negative and
// cropped X, zeros padded back). Opset 11 on, the pads a constant input covering every dim (no
// axes input); other modes are refused. The constant value has no gradient.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status pad_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const ir::Attribute* mode = ctx.node.attribute("mode");
  if (mode && mode->s != "constant") return not_implemented("Pad's gradient in mode '", mode->s, "'");
  if (ctx.node.inputs.size() > 3 && !ctx.node.inputs[3].empty())
    return not_implemented("Pad's gradient with an axes input");
  if (e.opset() < 11) return not_implemented("Pad's gradient before opset 11 (the model's opset is ", e.opset(), ")");
  std::vector<int64_t> pads;
  {
    const Tensor* t = ctx.node.inputs.size() > 1 ? e.initializer(ctx.input(1)) : nullptr;
    if (!t || t->dtype() != DataType::kInt64)
      return not_implemented("Pad's gradient needs its pads to be a constant (an int64 initializer)");
    pads.assign(t->data<int64_t>(), t->data<int64_t>() + t->numel());
  }
  const int64_t rank = int64_t(pads.size() / 2);
  if (pads.size() % 2) return invalid_argument("Pad: ", pads.size(), " pads is not two per dim");
  std::vector<int64_t> starts, cut_ends, axes, regrow;
  bool cut = false, grow = false;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t begin = pads[size_t(i)], end = pads[size_t(i + rank)];
    starts.push_back(std::max<int64_t>(begin, 0));
    cut_ends.push_back(std::max<int64_t>(end, 0));
    axes.push_back(i);
    cut = cut || begin > 0 || end > 0;
    grow = grow || begin < 0 || end < 0;
  }
  for (int64_t i = 0; i < 2 * rank; ++i) regrow.push_back(std::max<int64_t>(-pads[size_t(i)], 0));
  std::string g = ctx.output_grads[0];
  if (cut) {
    const std::string ends = e.op("Sub", {e.op("Shape", {g}), e.int64s(cut_ends)});
    g = e.op("Slice", {g, e.int64s(starts), ends, e.int64s(axes)});
  }
  if (grow) g = e.op("Pad", {g, e.int64s(regrow)});
  ctx.input_grads[0] = g;
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Pad", pad_gradient);
}  // namespace onyx::training
