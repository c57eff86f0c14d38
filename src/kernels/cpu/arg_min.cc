// ArgMin: the index of the smallest element along `axis` (see ArgReduceKernel in reduce.h).
#include "kernels/reduce.h"

namespace onyx {

ONYX_REGISTER_KERNEL("", "ArgMin", 1, kLatestOpset, ArgReduceKernel<false>);

}  // namespace onyx
