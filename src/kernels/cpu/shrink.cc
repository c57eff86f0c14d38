// Shrink: y = x + bias for x < -lambd, x - bias for x > lambd, 0 otherwise, elementwise.
// Computed in double for integer inputs; the result converts back to the input type.
#include <limits>
#include <type_traits>

#include "kernels/unary.h"

namespace onyx {
namespace {

class ShrinkKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    lambd_ = info.attr_float("lambd", 0.5f);
    bias_ = info.attr_float("bias", 0.0f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return unary_map<ONYX_NUMERIC_TYPES>(ctx, [this](auto x) {
      using C = std::conditional_t<std::is_integral_v<decltype(x)>, double, decltype(x)>;
      const C v = C(x);
      const C r = v < C(-lambd_) ? v + C(bias_) : v > C(lambd_) ? v - C(bias_) : C(0);
      return to_input_type<decltype(x)>(r);
    });
  }

 private:
  // Integer results truncate toward zero and saturate, like Cast.
  template <typename T, typename C>
  static T to_input_type(C r) {
    if constexpr (std::is_integral_v<T>) {
      if (!(r > double(std::numeric_limits<T>::min()))) return std::numeric_limits<T>::min();
      if (!(r < double(std::numeric_limits<T>::max()))) return std::numeric_limits<T>::max();
      return static_cast<T>(r);
    } else {
      return r;
    }
  }

  float lambd_ = 0.5f;
  float bias_ = 0.0f;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Shrink", 9, kLatestOpset, ShrinkKernel);

}  // namespace onyx
