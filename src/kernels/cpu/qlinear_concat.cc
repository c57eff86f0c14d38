// com.microsoft QLinearConcat (contrib op, since 1): inputs Y_scale, Y_zero_point, then k >= 1
// triples (X_i, X_i_scale, X_i_zero_point), all uint8 or all int8 (an omitted zero point is
// 0); attribute axis (required, negative counts from the back). Each X_i is requantised to
// Y's parameters, q(v) = saturate(round_half_even(float32(X_i - zp_i) * (s_i / Y_scale)) + Y_zp)
// (a plain copy when its parameters equal Y's), and the results are joined along axis as
// Concat joins them.
#include <array>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/qlinear_common.h"

namespace onyx {
namespace {

class QLinearConcatKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    if (!info.has_attr("axis")) return invalid_model("QLinearConcat needs an 'axis' attribute");
    axis_ = info.attr_int("axis", 0);
    if (info.num_inputs() < 5 || (info.num_inputs() - 2) % 3 != 0)
      return invalid_model("QLinearConcat takes Y_scale, Y_zero_point and (X, X_scale, X_zero_point) triples, got ",
                           info.num_inputs(), " inputs");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const int count = (ctx.num_inputs() - 2) / 3;
    if (!ctx.has_input(2)) return invalid_argument("QLinearConcat: the first X is missing");
    const Tensor& first = ctx.input(2);
    if (!is_qlinear_type(first.dtype()))
      return invalid_argument("QLinearConcat: inputs must be uint8 or int8, got ", first.describe());
    ONYX_ASSIGN_OR_RETURN(QParams py, read_qparams(ctx, 0, 1, first.dtype(), "Y"));
    const int64_t rank = first.rank();
    if (axis_ < -rank || axis_ >= rank)
      return invalid_argument("QLinearConcat: axis ", axis_, " is out of range for ", first.describe());
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    Shape out_shape = first.shape();
    out_shape[size_t(axis)] = 0;
    std::vector<QParams> params;
    for (int i = 0; i < count; ++i) {
      if (!ctx.has_input(2 + 3 * i)) return invalid_argument("QLinearConcat: X ", i, " is missing");
      const Tensor& t = ctx.input(2 + 3 * i);
      if (t.dtype() != first.dtype() || t.rank() != rank)
        return invalid_argument("QLinearConcat: input ", i, " (", t.describe(), ") does not match ", first.describe());
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis && t.dim(d) != first.dim(d))
          return invalid_argument("QLinearConcat: input ", i, " (", t.describe(), ") does not match ",
                                  first.describe(), " outside axis ", axis);
      out_shape[size_t(axis)] += t.dim(axis);
      ONYX_ASSIGN_OR_RETURN(QParams p, read_qparams(ctx, 3 + 3 * i, 4 + 3 * i, first.dtype(), "X"));
      params.push_back(p);
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, first.dtype(), out_shape));
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= out_shape[size_t(d)];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= out_shape[size_t(d)];
    const int64_t out_row = out_shape[size_t(axis)] * inner;
    return dispatch<uint8_t, int8_t>(first.dtype(), [&]<typename Q>() -> Status {
      Q* out = y->data<Q>();
      int64_t col = 0;
      for (int i = 0; i < count; ++i) {
        const Tensor& t = ctx.input(2 + 3 * i);
        const QParams& p = params[size_t(i)];
        const bool same = p.scale == py.scale && p.zero_point == py.zero_point;
        std::array<Q, 256> table;
        const float ratio = p.scale / py.scale;
        for (int v = 0; v < 256; ++v)
          table[size_t(v)] = quantize_to<Q>(float(int32_t(Q(v)) - p.zero_point) * ratio, py.zero_point);
        const int64_t row = t.dim(axis) * inner;
        const Q* in = t.data<Q>();
        for (int64_t o = 0; o < outer && row > 0; ++o)
          for (int64_t j = 0; j < row; ++j)
            out[o * out_row + col + j] = same ? in[o * row + j] : table[uint8_t(in[o * row + j])];
        col += row;
      }
      return Status::Ok();
    });
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "QLinearConcat", 1, kLatestOpset, QLinearConcatKernel);

}  // namespace onyx
