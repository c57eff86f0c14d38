// LogSoftmax: Y = X - max - log(sum(exp(X - max))) along the axis (see softmax_common.h).
#include "kernels/kernel.h"
#include "kernels/softmax_common.h"

namespace onyx {

ONYX_REGISTER_KERNEL("", "LogSoftmax", 1, kLatestOpset, SoftmaxFamilyKernel<SoftmaxKind::kLogSoftmax>);

}  // namespace onyx
