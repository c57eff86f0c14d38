// NegativeLogLikelihoodLoss (input: log-probabilities [N, C, d1...]): d input =
// -onehot(target) * weight(target) * dLoss, divided by the summed weights for "mean", zero
// where the target is ignore_index (loss_common.h). The target and weight get no gradient.
#include "training/gradients/loss_common.h"

namespace onyx::training {
namespace {

Status nll_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  ONYX_ASSIGN_OR_RETURN(ctx.input_grads[0], nll_log_prob_gradient(ctx, ctx.input(0), ctx.output_grads[0]));
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "NegativeLogLikelihoodLoss", nll_gradient);
}  // namespace onyx::training
