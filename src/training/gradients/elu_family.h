// The ELU family's gradient, shared by Elu, Selu and Celu: dX = dY * gain where X > 0, else
// dY * gain * alpha * exp(X * input_scale) * input_scale (PyTorch's rule: the exponential
// branch at X = 0).
#pragma once
#include "training/gradient_rule.h"

namespace onyx::training {

Status elu_family_gradient(GradientContext& ctx, double gain, double alpha, double input_scale);

}  // namespace onyx::training
