// Shared by the ai.onnx.preview.training optimizers' rules (Adagrad, Adam, Momentum): inputs
// are R, T, then `groups` runs of n tensors (X_1..X_n, G_1..G_n, ...); output run j holds the
// new values of input run source_groups[j], each output typed like its input.
#pragma once
#include <vector>

#include "ops/op_rule.h"

namespace onyx::ops {

Status infer_optimizer(InferenceContext& ctx, int groups, const std::vector<int>& source_groups);

}  // namespace onyx::ops
