// RandomUniformLike: a tensor of the input's shape drawn from the distribution with 'low' and
// 'high', of type 'dtype' (default: the input's type, which must then be floating-point);
// reproducible for a given 'seed'.
#include "kernels/random_common.h"

namespace onyx {
namespace {

class RandomUniformLikeKernel final : public random::RandomKernel {
 public:
  RandomUniformLikeKernel()
      : RandomKernel({"RandomUniformLike", random::Distribution::kUniform, "low", 0.0f, "high", 1.0f, /*like=*/true}) {}
};

}  // namespace

ONYX_REGISTER_KERNEL("", "RandomUniformLike", 1, kLatestOpset, RandomUniformLikeKernel);

}  // namespace onyx
