// RandomUniform: a tensor of the 'shape' attribute drawn from the distribution with 'low' and
// 'high', of type 'dtype' (default float); reproducible for a given 'seed'.
#include "kernels/random_common.h"

namespace onyx {
namespace {

class RandomUniformKernel final : public random::RandomKernel {
 public:
  RandomUniformKernel()
      : RandomKernel({"RandomUniform", random::Distribution::kUniform, "low", 0.0f, "high", 1.0f, /*like=*/false}) {}
};

}  // namespace

ONYX_REGISTER_KERNEL("", "RandomUniform", 1, kLatestOpset, RandomUniformKernel);

}  // namespace onyx
