// Static rule shared by NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
#pragma once
#include "ops/op_rule.h"

namespace onyx::ops {

// Output 0 of a loss over input (N, C, d1..dk) and target (N, d1..dk): the input's element
// type; with reduction 'none' the target's shape (dims unknown there are taken from the
// input), with 'sum' or 'mean' (the default) a scalar.
Status infer_loss_output(InferenceContext& ctx);

}  // namespace onyx::ops
