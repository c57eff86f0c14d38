// The kernel shared by the elementwise com.microsoft QLinear* ops (QLinearSigmoid,
// QLinearLeakyRelu; contrib ops, since 1): X uint8 or int8 with X_scale, X_zero_point, Y_scale,
// Y_zero_point (omitted zero points are 0); Y = q(f(X_scale * (X - X_zp)); Y_scale, Y_zp)
// elementwise, q(v) = saturate(round_half_even(v / Y_scale) + Y_zp), in float32. X has 256
// possible values, so each run fills a 256-entry table and looks every element up.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "kernels/dispatch.h"
#include "kernels/qlinear_common.h"

namespace onyx {

// Derived (CRTP) supplies `static constexpr const char* kName` and `float apply(float x) const`.
template <typename Derived>
class QLinearUnaryKernel : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!is_qlinear_type(x.dtype()))
      return invalid_argument(Derived::kName, ": X must be uint8 or int8, got ", x.describe());
    ONYX_ASSIGN_OR_RETURN(QParams px, read_qparams(ctx, 1, 2, x.dtype(), "X"));
    ONYX_ASSIGN_OR_RETURN(QParams py, read_qparams(ctx, 3, 4, x.dtype(), "Y"));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    const Derived& self = static_cast<const Derived&>(*this);
    return dispatch<uint8_t, int8_t>(x.dtype(), [&]<typename Q>() -> Status {
      std::array<Q, 256> table;
      for (int v = 0; v < 256; ++v) {
        const int32_t q = int32_t(Q(v));  // every value of Q, indexed by its byte
        table[size_t(v)] = quantize_to<Q>(self.apply(px.scale * float(q - px.zero_point)) / py.scale, py.zero_point);
      }
      const Q* in = x.data<Q>();
      Q* out = y->data<Q>();
      for (int64_t i = 0; i < x.numel(); ++i) out[i] = table[uint8_t(in[i])];
      return Status::Ok();
    });
  }
};

}  // namespace onyx
