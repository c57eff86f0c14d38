// Min: dY to the inputs holding the minimum, shared among ties (select_common.h).
#include "training/gradients/select_common.h"

namespace onyx::training {
ONYX_REGISTER_GRADIENT("", "Min", select_gradient);
}  // namespace onyx::training
