// Pow: Z = X ^ Y elementwise with broadcasting ('broadcast'/'axis' attributes before opset 7).
// X and Y may have different numeric types; Z has X's type.
//   float X: computed in float when X and Y are float, float16 or bfloat16, else in double.
//   integer X, integer Y: exact integer power, wrapping on overflow; for Y < 0 the result is
//     the truncated 1 / X^|Y| (1 for X == 1, +-1 for X == -1, else 0).
//   integer X, float Y: pow in double, then converted saturating (NaN gives 0).
#include <cmath>
#include <type_traits>

#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

template <typename T, typename E>
T int_pow(T base, E exp) {
  if constexpr (std::is_signed_v<E>) {
    if (exp < 0) {
      if (base == 1) return T(1);
      if constexpr (std::is_signed_v<T>) {
        if (base == -1) return T(exp % 2 == 0 ? 1 : -1);
      }
      return T(0);
    }
  }
  using U = wrap_t<T>;
  U result = 1, b = U(base);
  for (auto e = std::make_unsigned_t<E>(exp); e != 0; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return T(result);
}

// Z element from compute values x (of X's element type T) and y (of Y's element type E).
template <typename T, typename E, typename CX, typename CY>
compute_t<T> pow_value(CX x, CY y) {
  if constexpr (is_int_v<T> && is_int_v<E>) {
    return int_pow<T, E>(x, y);
  } else if constexpr (is_int_v<T>) {
    return saturate_cast<T>(std::pow(double(x), double(y)));
  } else if constexpr (std::is_same_v<CX, float> && std::is_same_v<CY, float>) {
    return std::pow(x, y);
  } else {
    return compute_t<T>(std::pow(double(x), double(y)));
  }
}

class PowKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override { return broadcast_.parse(info); }

  Status compute(KernelContext& ctx) const override {
    ONYX_RETURN_IF_ERROR(check_tensor_inputs(ctx, 2));
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    Shape out_shape, y_view;
    ONYX_RETURN_IF_ERROR(broadcast_.resolve(x.shape(), y.shape(), out_shape, y_view));
    return dispatch<ONYX_FLOAT_TYPES, int32_t, int64_t>(x.dtype(), [&]<typename T>() -> Status {
      ONYX_ASSIGN_OR_RETURN(Tensor* z, ctx.allocate_output(0, x.dtype(), out_shape));
      // x * x: the common square, exact where pow is.
      if constexpr (!is_int_v<T>) {
        if (y.numel() == 1 && y.get_double(0) == 2.0) {
          binary_loop(x.data<T>(), x.shape(), x.data<T>(), x.shape(), z->data<T>(), out_shape,
                      [](auto a, auto) { return a * a; });
          return Status::Ok();
        }
      }
      return dispatch<ONYX_NUMERIC_TYPES>(y.dtype(), [&]<typename E>() -> Status {
        binary_loop(x.data<T>(), x.shape(), y.data<E>(), y_view, z->data<T>(), out_shape,
                    [](auto a, auto b) { return pow_value<T, E>(a, b); });
        return Status::Ok();
      });
    });
  }

 private:
  BinaryBroadcast broadcast_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Pow", 1, kLatestOpset, PowKernel);

}  // namespace onyx
