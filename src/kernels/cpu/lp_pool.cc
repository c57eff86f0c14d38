// LpPool: (sum over each window of |x|^p)^(1/p) for X (N, C, D1..Dn); taps in the padding
// contribute nothing.
#include <cmath>

#include "kernels/pool_common.h"

namespace onyx {
namespace {

class LpPoolKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(parse_pool_attrs(info, &attrs_));
    // 'p' is a float in LpPool-1 and an int from LpPool-2.
    const ir::Attribute* p = info.attr("p");
    p_ = !p ? 2.0 : p->type == ir::Attribute::Type::kFloat ? double(p->f) : double(p->i);
    if (!(p_ > 0) || !std::isfinite(p_)) return invalid_model("p must be positive, got ", p_);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return compute_window_pool(ctx, attrs_, [&]<typename T>(const PoolWindows& windows, const T* plane, int64_t o) {
      using CT = compute_t<T>;
      const CT p = static_cast<CT>(p_);
      CT sum = 0;
      windows.for_each_tap(o, [&](int64_t i) {
        const CT v = std::fabs(static_cast<CT>(plane[i]));
        sum += p_ == 1 ? v : p_ == 2 ? v * v : CT(std::pow(v, p));
      });
      return p_ == 1 ? sum : p_ == 2 ? std::sqrt(sum) : CT(std::pow(sum, CT(1) / p));
    });
  }

 private:
  WindowAttrs attrs_;
  double p_ = 2;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "LpPool", 1, kLatestOpset, LpPoolKernel);

}  // namespace onyx
