// ReduceMin: dY to the elements equal to the minimum, shared among ties (reduce_common.h).
#include "training/gradients/reduce_common.h"

namespace onyx::training {
ONYX_REGISTER_GRADIENT("", "ReduceMin", reduce_select_gradient);
}  // namespace onyx::training
