// RandomNormalLike: a tensor of the input's shape drawn from the distribution with 'mean' and
// 'scale', of type 'dtype' (default: the input's type, which must then be floating-point);
// reproducible for a given 'seed'.
#include "kernels/random_common.h"

namespace onyx {
namespace {

class RandomNormalLikeKernel final : public random::RandomKernel {
 public:
  RandomNormalLikeKernel()
      : RandomKernel({"RandomNormalLike", random::Distribution::kNormal, "mean", 0.0f, "scale", 1.0f, /*like=*/true}) {}
};

}  // namespace

ONYX_REGISTER_KERNEL("", "RandomNormalLike", 1, kLatestOpset, RandomNormalLikeKernel);

}  // namespace onyx
