// Dropout: with its mask output, dX = dY * mask / (1 - ratio); without it, only a Dropout that
// is off (training_mode a constant false or absent, or ratio a constant 0) is differentiable,
// as the identity. The ratio and training_mode inputs get no gradient.
#include <optional>

#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

// The constant value of input i as a double, or nothing.
std::optional<double> constant(GradientContext& ctx, size_t i) {
  if (ctx.node.inputs.size() <= i || ctx.node.inputs[i].empty()) return std::nullopt;
  const Tensor* t = ctx.emit.initializer(ctx.node.inputs[i]);
  if (!t || t->numel() != 1) return std::nullopt;
  return t->get_double(0);
}

Status dropout_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const bool has_training = ctx.node.inputs.size() > 2 && !ctx.node.inputs[2].empty();
  const auto training = constant(ctx, 2);
  const bool ratio_given = ctx.node.inputs.size() > 1 && !ctx.node.inputs[1].empty();
  const auto ratio = ratio_given ? constant(ctx, 1) : std::optional<double>(0.5);
  if (!has_training || (training && *training == 0) || (ratio && *ratio == 0)) {  // off: the identity
    ctx.input_grads[0] = ctx.output_grads[0];
    return Status::Ok();
  }
  if (ctx.node.outputs.size() < 2 || ctx.node.outputs[1].empty())
    return not_implemented("Dropout's gradient in training mode needs its mask output (export with the mask, or "
                           "set the ratio to 0)");
  if (!ratio) return not_implemented("Dropout's gradient needs a constant ratio");
  const DataType t = ctx.elem_type(ctx.input(0));
  ONYX_ASSIGN_OR_RETURN(std::string scale, e.scalar(t, *ratio < 1 ? 1.0 / (1.0 - *ratio) : 0.0));
  const std::string mask = e.op("Cast", {ctx.node.outputs[1]}, {{"to", GradientEmitter::int_attr("to", int64_t(t))}});
  ctx.input_grads[0] = e.op("Mul", {ctx.output_grads[0], e.op("Mul", {mask, scale})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Dropout", dropout_gradient);
}  // namespace onyx::training
