// Mod: elementwise remainder with numpy broadcasting.
//   fmod=0 (integers only): the result takes the sign of the divisor, as Python's %.
//   fmod=1: the result takes the sign of the dividend, as C's fmod (truncated division).
// Integer x % 0 == 0 (see elementwise_binary.h). Floating-point inputs require fmod=1.
#include <cmath>

#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

template <typename T>
T floor_mod(T x, T y) {
  T r = safe_rem(x, y);
  if constexpr (std::is_signed_v<T>) {
    if (r != 0 && ((r < 0) != (y < 0))) r = T(r + y);
  }
  return r;
}

class ModKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const int64_t fmod = info.attr_int("fmod", 0);
    if (fmod != 0 && fmod != 1) return invalid_model("attribute 'fmod' must be 0 or 1, got ", fmod);
    fmod_ = fmod == 1;
    return broadcast_.parse(info);
  }

  Status compute(KernelContext& ctx) const override {
    if (ctx.has_input(0) && is_float_type(ctx.input(0).dtype()) && !fmod_)
      return invalid_model("Mod on ", data_type_name(ctx.input(0).dtype()), " requires fmod=1");
    const bool fmod = fmod_;
    return compute_binary<false, ONYX_NUMERIC_TYPES>(ctx, broadcast_, [fmod]<typename T>(auto x, auto y) {
      if constexpr (is_int_v<T>) {
        return fmod ? safe_rem<T>(x, y) : floor_mod<T>(x, y);
      } else {
        return std::fmod(x, y);
      }
    });
  }

 private:
  bool fmod_ = false;
  BinaryBroadcast broadcast_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Mod", 10, kLatestOpset, ModKernel);

}  // namespace onyx
