// GlobalAveragePool: the mean over all spatial dims of X (N, C, D1..Dn) -> (N, C, 1..1).
#include "kernels/global_pool_common.h"

namespace onyx {
namespace {

class GlobalAveragePoolKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return compute_global_pool(ctx, []<typename T>(const T* in, int64_t size) {
      using CT = compute_t<T>;
      CT sum = 0;
      for (int64_t i = 0; i < size; ++i) sum += static_cast<CT>(in[i]);
      return size > 0 ? sum / static_cast<CT>(size) : CT(0);
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "GlobalAveragePool", 1, kLatestOpset, GlobalAveragePoolKernel);

}  // namespace onyx
