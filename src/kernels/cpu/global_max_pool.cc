// GlobalMaxPool: the maximum over all spatial dims of X (N, C, D1..Dn) -> (N, C, 1..1).
// An empty plane gives -inf.
#include <limits>

#include "kernels/global_pool_common.h"

namespace onyx {
namespace {

class GlobalMaxPoolKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return compute_global_pool(ctx, []<typename T>(const T* in, int64_t size) {
      using CT = compute_t<T>;
      CT best = size > 0 ? static_cast<CT>(in[0]) : -std::numeric_limits<CT>::infinity();
      for (int64_t i = 1; i < size; ++i) {
        const CT v = static_cast<CT>(in[i]);
        if (v > best) best = v;
      }
      return best;
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "GlobalMaxPool", 1, kLatestOpset, GlobalMaxPoolKernel);

}  // namespace onyx
