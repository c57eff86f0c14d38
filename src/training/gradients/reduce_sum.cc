// ReduceSum: dX = dY (with the reduced dims kept as 1) expanded to X's shape. The axes (an
// attribute before opset 13, an input from 13) must be constant; none (or empty, without
// noop_with_empty_axes) reduces every dim.
#include "training/gradients/reduce_common.h"

namespace onyx::training {
namespace {

Status reduce_sum_gradient(GradientContext& ctx) { return reduce_gradient(ctx, /*mean=*/false); }

}  // namespace
ONYX_REGISTER_GRADIENT("", "ReduceSum", reduce_sum_gradient);
}  // namespace onyx::training
