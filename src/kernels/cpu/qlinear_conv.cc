// QLinearConv: quantised Conv (see qlinear_conv_common.h for the formula and the two paths).
// The output type is y_zero_point's.
#include "kernels/qlinear_conv_common.h"

namespace onyx {

ONYX_REGISTER_KERNEL("", "QLinearConv", 10, kLatestOpset, QLinearConvKernel<false>);

}  // namespace onyx
