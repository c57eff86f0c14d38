// The gradient of Max and Min (variadic, broadcasting): each input gets dY where it is the
// selected value, shared equally among the inputs that tie there (PyTorch's rule for
// maximum / minimum), summed back to its own shape.
#pragma once
#include "training/gradient_rule.h"

namespace onyx::training {

Status select_gradient(GradientContext& ctx);

}  // namespace onyx::training
