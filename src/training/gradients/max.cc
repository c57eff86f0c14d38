// Max: dY to the inputs holding the maximum, shared among ties (select_common.h).
#include "training/gradients/select_common.h"

namespace onyx::training {
ONYX_REGISTER_GRADIENT("", "Max", select_gradient);
}  // namespace onyx::training
