// The kernel shared by com.microsoft QLinearAdd and QLinearMul (contrib ops, since 1): uint8 or int8 A and B with
// their scales and zero points (omitted zero points are 0), numpy broadcasting, C in A's type:
//   QLinearAdd: C = q(float32(A - A_zp) * (A_scale / C_scale) + float32(B - B_zp) * (B_scale / C_scale))
//   QLinearMul: C = q(float32((A - A_zp) * (B - B_zp)) * (A_scale * B_scale / C_scale))
// with q as in qlinear_common.h, the float32 operations in the order written.
#pragma once
#include "kernels/broadcast.h"
#include "kernels/dispatch.h"
#include "kernels/qlinear_binary_span.h"
#include "kernels/qlinear_common.h"

namespace onyx {

template <bool kMul>
class QLinearBinaryKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(3);
    const char* op = kMul ? "QLinearMul" : "QLinearAdd";
    if (!is_qlinear_type(a.dtype()) || b.dtype() != a.dtype())
      return invalid_argument(op, ": A and B must both be uint8 or both int8, got ", a.describe(), " and ", b.describe());
    ONYX_ASSIGN_OR_RETURN(QParams pa, read_qparams(ctx, 1, 2, a.dtype(), "A"));
    ONYX_ASSIGN_OR_RETURN(QParams pb, read_qparams(ctx, 4, 5, a.dtype(), "B"));
    ONYX_ASSIGN_OR_RETURN(QParams pc, read_qparams(ctx, 6, 7, a.dtype(), "C"));
    ONYX_ASSIGN_OR_RETURN(Shape shape, broadcast_shapes({a.shape(), b.shape()}));
    ONYX_ASSIGN_OR_RETURN(Tensor* c, ctx.allocate_output_uninitialized(0, a.dtype(), shape));
    const float mul = pa.scale * pb.scale / pc.scale, ka = pa.scale / pc.scale, kb = pb.scale / pc.scale;
    const QLinearBinaryParams params{pa.scale, pb.scale, pc.scale, pa.zero_point, pb.zero_point, pc.zero_point};
    const bool same = a.shape() == shape && b.shape() == shape;
    if ((same || (a.shape() == shape && b.numel() == 1)) &&
        qlinear_binary_span(kMul, a.dtype(), a.raw_data(), b.raw_data(), !same, c->raw_data(), c->numel(), params))
      return Status::Ok();
    const int32_t za = pa.zero_point, zb = pb.zero_point, zc = pc.zero_point;
    return dispatch<uint8_t, int8_t>(a.dtype(), [&]<typename Q>() -> Status {
      broadcast_binary<Q, Q, Q>(a, b, *c, [&](Q x, Q y) {
        if constexpr (kMul) {
          return quantize_to<Q>(float((int32_t(x) - za) * (int32_t(y) - zb)) * mul, zc);
        } else {
          return quantize_to<Q>(float(int32_t(x) - za) * ka + float(int32_t(y) - zb) * kb, zc);
        }
      });
      return Status::Ok();
    });
  }
};

}  // namespace onyx
