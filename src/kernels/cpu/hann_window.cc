// HannWindow: a generalized cosine window with coefficients {0.5, 0.5}; periodic (default) or
// symmetric, in output_datatype (default float).
#include "kernels/signal_common.h"

namespace onyx {
namespace {

class HannWindowKernel final : public CosineWindowKernel {
 public:
  HannWindowKernel() : CosineWindowKernel({0.5, 0.5}) {}
};

}  // namespace

ONYX_REGISTER_KERNEL("", "HannWindow", 17, kLatestOpset, HannWindowKernel);

}  // namespace onyx
