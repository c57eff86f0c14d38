// Conv: N-d convolution with groups, strides, dilations and padding, as im2col + GEMM.
// X (N, C, D1..Dn), W (M, C / group, k1..kn), optional B (M) -> Y (N, M, O1..On).
#include <vector>

#include "kernels/conv_common.h"
#include "kernels/dispatch.h"
#include "kernels/gemm.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class ConvKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(parse_window_attrs(info, &attrs_));
    group_ = info.attr_int("group", 1);
    if (group_ < 1) return invalid_model("group must be positive, got ", group_);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const bool has_bias = ctx.has_input(2);
    const Tensor& b = ctx.input(2);
    if (w.dtype() != x.dtype() || (has_bias && b.dtype() != x.dtype()))
      return invalid_argument("X, W and B must share one type, got ", x.describe(), ", ", w.describe(),
                              has_bias ? ", " + b.describe() : std::string());
    ONYX_ASSIGN_OR_RETURN(WindowGeometry g, resolve_conv(attrs_, group_, x.shape(), w.shape()));
    const int64_t batch = x.dim(0), channels = x.dim(1), maps = w.dim(0);
    if (has_bias && (b.rank() != 1 || b.dim(0) != maps))
      return invalid_argument("bias ", b.describe(), " must have shape [", maps, "]");
    Shape y_shape{batch, maps};
    y_shape.insert(y_shape.end(), g.out.begin(), g.out.end());
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), y_shape));
    if (y->numel() == 0) return Status::Ok();

    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using CT = compute_t<T>;
      std::vector<CT> xbuf, wbuf, ybuf;
      const CT* xc = as_compute_type<CT>(x.data<T>(), x.numel(), xbuf);
      const CT* wc = as_compute_type<CT>(w.data<T>(), w.numel(), wbuf);
      CT* yc = nullptr;
      if constexpr (std::is_same_v<T, CT>) {
        yc = y->data<T>();
      } else {
        ybuf.resize(size_t(y->numel()));
        yc = ybuf.data();
      }
      conv_gemm<CT>(xc, wc, yc, batch, channels, maps, group_, g);
      const int64_t plane = g.out_size();
      if (has_bias) {
        const T* bias = b.data<T>();
        for (int64_t i = 0; i < batch * maps; ++i) {
          const CT bv = static_cast<CT>(bias[i % maps]);
          for (int64_t o = 0; o < plane; ++o) yc[i * plane + o] += bv;
        }
      }
      if constexpr (!std::is_same_v<T, CT>) {
        T* out = y->data<T>();
        for (int64_t i = 0; i < y->numel(); ++i) out[i] = static_cast<T>(yc[i]);
      }
      return Status::Ok();
    });
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Conv", 1, kLatestOpset, ConvKernel);

}  // namespace onyx
