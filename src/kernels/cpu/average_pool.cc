// AveragePool: the mean over each window of X (N, C, D1..Dn). With count_include_pad the
// divisor counts taps in the padding (not those past it from ceil_mode); otherwise only taps
// inside the input. A window with no tap to count yields 0.
#include "kernels/pool_common.h"

namespace onyx {
namespace {

class AveragePoolKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(parse_pool_attrs(info, &attrs_));
    count_include_pad_ = info.attr_int("count_include_pad", 0) != 0;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return compute_window_pool(ctx, attrs_, [&]<typename T>(const PoolWindows& windows, const T* plane, int64_t o) {
      using CT = compute_t<T>;
      const int64_t count = count_include_pad_ ? windows.padded_count(o) : windows.valid_count(o);
      CT sum = 0;
      windows.for_each_tap(o, [&](int64_t i) { sum += static_cast<CT>(plane[i]); });
      return count > 0 ? sum / static_cast<CT>(count) : CT(0);
    });
  }

 private:
  WindowAttrs attrs_;
  bool count_include_pad_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "AveragePool", 1, kLatestOpset, AveragePoolKernel);

}  // namespace onyx
