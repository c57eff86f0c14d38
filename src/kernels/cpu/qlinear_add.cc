// com.microsoft QLinearAdd (contrib op, since 1):
//   C = q(float32(A - A_zp) * (A_scale / C_scale) + float32(B - B_zp) * (B_scale / C_scale))
// (see qlinear_binary.h).
#include "kernels/qlinear_binary.h"

namespace onyx {

ONYX_REGISTER_KERNEL("com.microsoft", "QLinearAdd", 1, kLatestOpset, QLinearBinaryKernel<false>);

}  // namespace onyx
