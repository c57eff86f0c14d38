// Shared by the SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss rules: the gradient of
// the negative log-likelihood with respect to the log-probabilities [N, C, d1...], for the
// loss's reduction ("mean": divided by the summed weights of the counted elements, "sum",
// "none"), class weights (input 2, optional) and ignore_index (attribute, optional).
#pragma once
#include "training/gradient_rule.h"

namespace onyx::training {

// dL/d(log_prob): -onehot(labels) * w(label) * dLoss (/ sum of w for "mean"), zero where the
// label is ignore_index. `scores` names any value of the log-probabilities' shape.
Result<std::string> nll_log_prob_gradient(GradientContext& ctx, const std::string& scores, const std::string& dloss);

// `x` with a dim of 1 inserted at `axis`, in the opset's form.
std::string unsqueeze_axis(GradientEmitter& e, const std::string& x, int64_t axis);

}  // namespace onyx::training
