// Hardmax: 1 at the first maximum along the axis, 0 elsewhere (see softmax_common.h).
#include "kernels/kernel.h"
#include "kernels/softmax_common.h"

namespace onyx {

ONYX_REGISTER_KERNEL("", "Hardmax", 1, kLatestOpset, SoftmaxFamilyKernel<SoftmaxKind::kHardmax>);

}  // namespace onyx
