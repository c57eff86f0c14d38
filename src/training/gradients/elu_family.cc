#include "training/gradients/elu_family.h"

namespace onyx::training {

Status elu_family_gradient(GradientContext& ctx, double gain, double alpha, double input_scale) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const DataType t = ctx.elem_type(ctx.input(0));
  const std::string& x = ctx.input(0);
  std::string dy = ctx.output_grads[0];
  if (gain != 1.0) {
    ONYX_ASSIGN_OR_RETURN(std::string g, e.scalar(t, gain));
    dy = e.op("Mul", {dy, g});
  }
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(t, 0.0));
  ONYX_ASSIGN_OR_RETURN(std::string coefficient, e.scalar(t, alpha * input_scale));
  std::string scaled = x;
  if (input_scale != 1.0) {
    ONYX_ASSIGN_OR_RETURN(std::string s, e.scalar(t, input_scale));
    scaled = e.op("Mul", {x, s});
  }
  const std::string negative = e.op("Mul", {dy, e.op("Mul", {e.op("Exp", {scaled}), coefficient})});
  ctx.input_grads[0] = e.op("Where", {e.op("Greater", {x, zero}), dy, negative});
  return Status::Ok();
}

}  // namespace onyx::training
