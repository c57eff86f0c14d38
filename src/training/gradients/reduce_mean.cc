// ReduceMean: dX = dY (reduced dims kept as 1) expanded to X's shape, divided by the number of
// elements each output averaged.
#include "training/gradients/reduce_common.h"

namespace onyx::training {
namespace {

Status reduce_mean_gradient(GradientContext& ctx) { return reduce_gradient(ctx, /*mean=*/true); }

}  // namespace
ONYX_REGISTER_GRADIENT("", "ReduceMean", reduce_mean_gradient);
}  // namespace onyx::training
