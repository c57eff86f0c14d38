// NhwcFusedConv (com.microsoft): FusedConv on channels-last X, Z and Y; see fused_conv_common.h.
#include "kernels/fused_conv_common.h"

namespace onyx {
ONYX_REGISTER_KERNEL("com.microsoft", "NhwcFusedConv", 1, kLatestOpset, FusedConvKernel<true>);
}  // namespace onyx
