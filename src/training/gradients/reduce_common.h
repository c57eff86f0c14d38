// The gradient of ReduceSum and ReduceMean, shared by their rule files.
#pragma once
#include "training/gradient_rule.h"

namespace onyx::training {

// dX = Expand(Reshape(dY, X's shape with the reduced dims as 1), Shape(X)), divided by the
// reduced element count for a mean. The axes come from the attribute or a constant input.
Status reduce_gradient(GradientContext& ctx, bool mean);

}  // namespace onyx::training
