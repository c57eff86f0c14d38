// The gradient of ops that pick elements by index along an axis (GatherElements, TopK): dY
// added into zeros of the input's shape at the picked indices (ScatterElements with reduction
// "add", so indices picked twice get both contributions).
#pragma once
#include "training/gradient_rule.h"

namespace onyx::training {

// dX for X = ctx.input(0), from `dy` at `indices` along `axis`.
Result<std::string> scatter_add_gradient(GradientContext& ctx, const std::string& dy, const std::string& indices,
                                         int64_t axis);

}  // namespace onyx::training
