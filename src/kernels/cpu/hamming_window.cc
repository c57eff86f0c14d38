// HammingWindow: a generalized cosine window with coefficients {25/46, 21/46};
// periodic (default) or symmetric, in output_datatype (default float).
#include "kernels/signal_common.h"

namespace onyx {
namespace {

class HammingWindowKernel final : public CosineWindowKernel {
 public:
  HammingWindowKernel() : CosineWindowKernel({25.0 / 46.0, 21.0 / 46.0}) {}
};

}  // namespace

ONYX_REGISTER_KERNEL("", "HammingWindow", 17, kLatestOpset, HammingWindowKernel);

}  // namespace onyx
