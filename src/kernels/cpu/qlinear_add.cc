// com.microsoft QLinearAdd (contrib op, since 1): C = q((A_scale * (A - A_zp) + B_scale * (B - B_zp)) / C_scale)
// (see qlinear_binary.h).
#include "kernels/qlinear_binary.h"

namespace onyx {

ONYX_REGISTER_KERNEL("com.microsoft", "QLinearAdd", 1, kLatestOpset, QLinearBinaryKernel<false>);

}  // namespace onyx
