// Static rules shared by the random generators (RandomNormal, RandomUniform, their *Like forms,
// Bernoulli).
#pragma once
#include "ops/op_rule.h"

namespace onyx::ops {

// RandomNormal / RandomUniform: the type 'dtype' (default float32), the shape attribute 'shape'.
Status infer_random(InferenceContext& ctx);
// RandomNormalLike / RandomUniformLike / Bernoulli: the type 'dtype' (default: the input's
// element type), the input's shape.
Status infer_random_like(InferenceContext& ctx);

}  // namespace onyx::ops
