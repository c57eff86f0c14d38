// What the reductions' gradients share (ReduceSum, ReduceMean, ReduceMax, ReduceMin,
// ReduceLogSumExp, one rule file each).
#pragma once
#include <functional>

#include "training/gradient_rule.h"

namespace onyx::training {

// A reduction node read back: which of the input's dims it reduced, and its output and output
// gradient with those dims put back as 1 (keepdims form), so that they broadcast against the
// input. `nothing` when no dim is reduced (noop_with_empty_axes with no axes): then Y is X.
struct KeptReduction {
  int64_t rank = 0;
  std::vector<int64_t> axes;  // the reduced dims, ascending
  bool nothing = false;
  std::string y, dy;
};
// The axes come from the attribute or a constant input; the input's rank must be static.
Result<KeptReduction> kept_reduction(GradientContext& ctx);

// The frame every reduction's rule shares: nothing unless X needs a gradient and one flows into
// Y; dY itself when nothing is reduced (the reduction passes X through); otherwise dX is what
// `derivative` emits from the kept reduction, X and X's element type.
using KeptDerivative =
    std::function<Result<std::string>(GradientEmitter& e, const KeptReduction& r, const std::string& x, DataType t)>;
Status kept_reduction_gradient(GradientContext& ctx, const KeptDerivative& derivative);

// `op` (ReduceMean, ReduceProd ...) of `x` over `axes` in the form the model's opset takes
// (axes as an input from opset 18, an attribute before), keepdims as given.
std::string reduce_over(GradientEmitter& e, const std::string& op, const std::string& x, const std::vector<int64_t>& axes,
                        bool keepdims);

// ReduceSum and ReduceMean: dX = Expand(dY kept, Shape(X)), divided by the reduced element
// count for a mean.
Status reduce_gradient(GradientContext& ctx, bool mean);

// ReduceMax and ReduceMin: dY to the elements equal to the result, shared equally among ties
// (PyTorch's rule for amax / amin).
Status reduce_select_gradient(GradientContext& ctx);

}  // namespace onyx::training
