// com.microsoft QGemm (contrib op, since 1): inputs A, a_scale, a_zero_point, B, b_scale,
// b_zero_point, C (optional), y_scale (optional), y_zero_point (optional); attributes alpha
// (1.0), transA, transB (0). A and B uint8 or int8 (2-D, transposed when asked), a_scale and
// a_zero_point per tensor, b_scale / b_zero_point per tensor or [N], C int32 broadcastable to
// (M, N) (beta is fixed at 1: C is quantised with A's and B's scales and zero point 0):
//   s[n] = float32(a_scale * b_scale[n]) * alpha
//   Yf[m, n] = float32(sum_k (A[m,k] - a_zp)(B[k,n] - b_zp[n])) * s[n] + float32(C[m, n]) * s[n]
// Y = Yf (float32) without y_scale, else q(Yf / y_scale) = saturate(round_half_even(.) +
// y_zp) in y_zero_point's type. A constant B with a constant zero point runs through oneDNN's
// int8 products (quantized_matmul_common.h); anything else through the exact reference.
#include <memory>
#include <vector>

#include "kernels/broadcast.h"
#include "kernels/dispatch.h"
#include "kernels/element_copy.h"
#include "kernels/qlinear_common.h"
#include "kernels/quantized_matmul_common.h"

namespace onyx {
namespace {

// The transpose of a 2-D tensor.
Result<Tensor> transpose_2d(const Tensor& t) {
  Tensor out(t.dtype(), {t.dim(1), t.dim(0)});
  ONYX_RETURN_IF_ERROR(strided_copy(t, 0, {1, t.dim(1)}, out.shape(), out));
  return out;
}

class QGemmKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    alpha_ = info.attr_float("alpha", 1.0f);
    trans_a_ = info.attr_int("transA", 0) != 0;
    trans_b_ = info.attr_int("transB", 0) != 0;
    const Tensor* b = info.constant_input(3);
    const Tensor* b_zp = info.constant_input(5);
    const bool has_zp = info.has_input(5);
    if (b && b->rank() == 2 && (!has_zp || b_zp)) {
      if (trans_b_) {
        ONYX_ASSIGN_OR_RETURN(const Tensor bt, transpose_2d(*b));
        weights_ = QuantizedWeights::make(&bt, has_zp, b_zp);
      } else {
        weights_ = QuantizedWeights::make(b, has_zp, b_zp);
      }
    }
    return Status::Ok();
  }

  std::string implementation() const override {
    return weights_ ? weights_->implementation() : "reference (integer GEMM)";
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(3);
    if (!is_qlinear_type(a.dtype()) || !is_qlinear_type(b.dtype()))
      return invalid_argument("QGemm: A and B must be uint8 or int8, got ", a.describe(), " and ", b.describe());
    if (a.rank() != 2 || b.rank() != 2) return invalid_argument("QGemm: A and B must be 2-D, got ", a.describe(), " and ", b.describe());
    const int64_t m = trans_a_ ? a.dim(1) : a.dim(0), k = trans_a_ ? a.dim(0) : a.dim(1);
    const int64_t kb = trans_b_ ? b.dim(1) : b.dim(0), n = trans_b_ ? b.dim(0) : b.dim(1);
    if (k != kb) return invalid_argument("QGemm: A ", a.describe(), " and B ", b.describe(), " do not multiply");
    ONYX_ASSIGN_OR_RETURN(QParams pa, read_qparams(ctx, 1, 2, a.dtype(), "a"));
    ONYX_ASSIGN_OR_RETURN(std::vector<float> scale, column_scales(pa.scale, ctx.input(4), n));
    if (scale.size() == 1) scale.assign(size_t(n), scale[0]);
    for (float& s : scale) s *= alpha_;
    const bool quantized_out = ctx.has_input(7);
    if (quantized_out && !ctx.has_input(8))
      return invalid_argument("QGemm: y_scale is given without y_zero_point (the output type is unknown)");

    // Yf, float32 (M, N): the output itself, or scratch before quantising.
    Tensor yf_scratch;
    Tensor* yf = nullptr;
    if (quantized_out) {
      yf_scratch = Tensor(DataType::kFloat, {m, n});
      yf = &yf_scratch;
    } else {
      ONYX_ASSIGN_OR_RETURN(yf, ctx.allocate_output_uninitialized(0, DataType::kFloat, {m, n}));
    }
    if (yf->numel() > 0) {
      if (weights_ && !trans_a_ && weights_->k() == k && weights_->n() == n) {
        ONYX_RETURN_IF_ERROR(
            weights_->multiply(a.raw_data(), a.dtype() == DataType::kUInt8, m, pa.zero_point, scale, nullptr, *yf));
      } else {
        Tensor at = a, bt = b;
        if (trans_a_) {
          ONYX_ASSIGN_OR_RETURN(at, transpose_2d(a));
        }
        if (trans_b_) {
          ONYX_ASSIGN_OR_RETURN(bt, transpose_2d(b));
        }
        ONYX_RETURN_IF_ERROR(quantized_matmul_reference(at, ctx.input(2), bt, ctx.input(5), scale, nullptr, *yf));
      }
      if (ctx.has_input(6)) ONYX_RETURN_IF_ERROR(add_c(ctx.input(6), scale, *yf));
    }
    if (!quantized_out) return Status::Ok();
    const Tensor& y_zp = ctx.input(8);
    if (!is_qlinear_type(y_zp.dtype())) return invalid_argument("QGemm: y_zero_point must be uint8 or int8, got ", y_zp.describe());
    ONYX_ASSIGN_OR_RETURN(QParams py, read_qparams(ctx, 7, 8, y_zp.dtype(), "y"));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, y_zp.dtype(), {m, n}));
    return dispatch<uint8_t, int8_t>(y_zp.dtype(), [&]<typename Q>() -> Status {
      const float* in = yf->data<float>();
      Q* out = y->data<Q>();
      for (int64_t i = 0; i < y->numel(); ++i) out[i] = quantize_to<Q>(in[i] / py.scale, py.zero_point);
      return Status::Ok();
    });
  }

 private:
  // yf[m, n] += float32(C[m, n]) * scale[n], C int32 broadcast to yf's shape.
  static Status add_c(const Tensor& c, const std::vector<float>& scale, Tensor& yf) {
    if (c.dtype() != DataType::kInt32) return invalid_argument("QGemm: C must be int32, got ", c.describe());
    ONYX_ASSIGN_OR_RETURN(Shape s, broadcast_shapes({c.shape(), yf.shape()}));
    if (s != yf.shape()) return invalid_argument("QGemm: C ", c.describe(), " does not broadcast to ", yf.describe());
    const int64_t n = yf.dim(1);
    float* y = yf.data<float>();
    for_each_broadcast(yf.shape(), {c.shape()}, [&](int64_t i, const int64_t* off) {
      y[i] += float(c.data<int32_t>()[off[0]]) * scale[size_t(i % n)];
    });
    return Status::Ok();
  }

  float alpha_ = 1.0f;
  bool trans_a_ = false, trans_b_ = false;
  std::unique_ptr<QuantizedWeights> weights_;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "QGemm", 1, kLatestOpset, QGemmKernel);

}  // namespace onyx
