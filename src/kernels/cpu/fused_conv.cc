// FusedConv (com.microsoft): Y = activation(Conv(X, W) + B + Z), NCHW; see fused_conv_common.h.
#include "kernels/fused_conv_common.h"

namespace onyx {
ONYX_REGISTER_KERNEL("com.microsoft", "FusedConv", 1, kLatestOpset, FusedConvKernel<false>);
}  // namespace onyx
