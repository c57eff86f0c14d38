// Softmax: Y = exp(X - max) / sum(exp(X - max)) along the axis (see softmax_common.h).
#include "kernels/kernel.h"
#include "kernels/softmax_common.h"

namespace onyx {

ONYX_REGISTER_KERNEL("", "Softmax", 1, kLatestOpset, SoftmaxFamilyKernel<SoftmaxKind::kSoftmax>);

}  // namespace onyx
