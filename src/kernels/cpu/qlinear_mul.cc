// com.microsoft QLinearMul (contrib op, since 1): C = q(float32((A - A_zp) * (B - B_zp)) * (A_scale * B_scale / C_scale))
// (see qlinear_binary.h).
#include "kernels/qlinear_binary.h"

namespace onyx {

ONYX_REGISTER_KERNEL("com.microsoft", "QLinearMul", 1, kLatestOpset, QLinearBinaryKernel<true>);

}  // namespace onyx
