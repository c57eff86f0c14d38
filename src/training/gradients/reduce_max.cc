// ReduceMax: dY to the elements equal to the maximum, shared among ties (reduce_common.h).
#include "training/gradients/reduce_common.h"

namespace onyx::training {
ONYX_REGISTER_GRADIENT("", "ReduceMax", reduce_select_gradient);
}  // namespace onyx::training
