// NhwcQLinearConv (com.microsoft, made by the nhwc_layout pass): QLinearConv with X and Y
// channels-last, X (N, H, W, C) -> Y (N, H', W', M); W stays (M, C/group, kH, kW). Always the
// oneDNN int8 path (qlinear_conv_common.h): the pass makes it only where prepare() can take it.
#include "kernels/qlinear_conv_common.h"

namespace onyx {

ONYX_REGISTER_KERNEL("com.microsoft", "NhwcQLinearConv", 1, kLatestOpset, QLinearConvKernel<true>);

}  // namespace onyx
