// RandomNormal: a tensor of the 'shape' attribute drawn from the distribution with 'mean' and
// 'scale', of type 'dtype' (default float); reproducible for a given 'seed'.
#include "kernels/random_common.h"

namespace onyx {
namespace {

class RandomNormalKernel final : public random::RandomKernel {
 public:
  RandomNormalKernel()
      : RandomKernel({"RandomNormal", random::Distribution::kNormal, "mean", 0.0f, "scale", 1.0f, /*like=*/false}) {}
};

}  // namespace

ONYX_REGISTER_KERNEL("", "RandomNormal", 1, kLatestOpset, RandomNormalKernel);

}  // namespace onyx
