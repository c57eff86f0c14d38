// BlackmanWindow: a generalized cosine window with coefficients {0.42, 0.5, 0.08}; periodic (default) or
// symmetric, in output_datatype (default float).
#include "kernels/signal_common.h"

namespace onyx {
namespace {

class BlackmanWindowKernel final : public CosineWindowKernel {
 public:
  BlackmanWindowKernel() : CosineWindowKernel({0.42, 0.5, 0.08}) {}
};

}  // namespace

ONYX_REGISTER_KERNEL("", "BlackmanWindow", 17, kLatestOpset, BlackmanWindowKernel);

}  // namespace onyx
