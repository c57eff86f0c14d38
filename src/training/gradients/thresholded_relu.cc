// ThresholdedRelu (alpha, default 1): dX = dY where X > alpha, else 0.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status thresholded_relu_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const std::string& x = ctx.input(0);
  const std::string& dy = ctx.output_grads[0];
  const DataType t = ctx.elem_type(x);
  const ir::Attribute* a = ctx.node.attribute("alpha");
  ONYX_ASSIGN_OR_RETURN(std::string alpha, e.scalar(t, a ? a->f : 1.0));
  ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(t, 0.0));
  ctx.input_grads[0] = e.op("Where", {e.op("Greater", {x, alpha}), dy, zero});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "ThresholdedRelu", thresholded_relu_gradient);
}  // namespace onyx::training
