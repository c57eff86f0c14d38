// ArgMax: the index of the largest element along `axis` (see ArgReduceKernel in reduce.h).
#include "kernels/reduce.h"

namespace onyx {

ONYX_REGISTER_KERNEL("", "ArgMax", 1, kLatestOpset, ArgReduceKernel<true>);

}  // namespace onyx
