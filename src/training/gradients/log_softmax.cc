// LogSoftmax (Y = log softmax(X) over `axis`): dX = dY - exp(Y) * sum(dY, axis).
#include "training/gradients/softmax_common.h"

namespace onyx::training {
namespace {

Status log_softmax_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  ONYX_ASSIGN_OR_RETURN(int64_t axis, softmax_axis(ctx));
  GradientEmitter& e = ctx.emit;
  const std::string total = e.reduce_sum(ctx.output_grads[0], {axis}, true);
  ctx.input_grads[0] = e.op("Sub", {ctx.output_grads[0], e.op("Mul", {e.op("Exp", {ctx.output(0)}), total})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "LogSoftmax", log_softmax_gradient);
}  // namespace onyx::training
