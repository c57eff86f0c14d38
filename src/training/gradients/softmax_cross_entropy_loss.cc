// SoftmaxCrossEntropyLoss (scores [N, C, d1...] -> loss, and log_prob optionally): with
// log_prob = LogSoftmax(scores, axis 1) and G its gradient (from the loss, loss_common.h,
// plus the log_prob output's own), d scores = G - softmax(scores) * sum(G, axis 1).
#include "training/gradients/loss_common.h"

namespace onyx::training {
namespace {

Status sce_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0]) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const bool loss_flows = !ctx.output_grads[0].empty();
  const bool log_prob_flows = ctx.output_grads.size() > 1 && !ctx.output_grads[1].empty();
  if (!loss_flows && !log_prob_flows) return Status::Ok();
  std::string log_prob = ctx.node.outputs.size() > 1 ? ctx.node.outputs[1] : "";
  if (log_prob.empty()) {
    const SymbolicShape& s = e.type_of(ctx.input(0)).shape;
    if (e.opset() < 13 && !(s.has_rank && s.dims.size() == 2))
      return not_implemented("SoftmaxCrossEntropyLoss's gradient before opset 13 needs 2-D scores or the log_prob output");
    log_prob = e.op("LogSoftmax", {ctx.input(0)}, {{"axis", GradientEmitter::int_attr("axis", 1)}});
  }
  std::string g;
  if (loss_flows) {
    ONYX_ASSIGN_OR_RETURN(g, nll_log_prob_gradient(ctx, ctx.input(0), ctx.output_grads[0]));
  }
  if (log_prob_flows) g = g.empty() ? ctx.output_grads[1] : e.op("Add", {g, ctx.output_grads[1]});
  const std::string total = e.reduce_sum(g, {1}, true);
  ctx.input_grads[0] = e.op("Sub", {g, e.op("Mul", {e.op("Exp", {log_prob}), total})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "SoftmaxCrossEntropyLoss", sce_gradient);
}  // namespace onyx::training
