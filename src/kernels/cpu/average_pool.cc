// AveragePool: the mean over each window of X (N, C, D1..Dn). With count_include_pad the
// divisor counts taps in the padding (not those past it from ceil_mode); otherwise only taps
// inside the input. A window with no tap to count yields 0.
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/pool_common.h"

namespace onyx {
namespace {

class AveragePoolKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(parse_window_attrs(info, &attrs_));
    if (attrs_.kernel_shape.empty()) return invalid_model("kernel_shape is required");
    count_include_pad_ = info.attr_int("count_include_pad", 0) != 0;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(WindowGeometry g, resolve_pool(attrs_, x.shape()));
    Shape y_shape{x.dim(0), x.dim(1)};
    y_shape.insert(y_shape.end(), g.out.begin(), g.out.end());
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), y_shape));
    if (y->numel() == 0) return Status::Ok();
    const PoolWindows windows(g);
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using CT = compute_t<T>;
      const int64_t planes = x.dim(0) * x.dim(1), in_size = g.in_size(), out_size = g.out_size();
      const T* in = x.data<T>();
      T* out = y->data<T>();
      for (int64_t o = 0; o < out_size; ++o) {
        const int64_t count = count_include_pad_ ? windows.padded_count(o) : windows.valid_count(o);
        for (int64_t p = 0; p < planes; ++p) {
          const T* plane = in + p * in_size;
          CT sum = 0;
          windows.for_each_tap(o, [&](int64_t i) { sum += static_cast<CT>(plane[i]); });
          out[p * out_size + o] = static_cast<T>(count > 0 ? sum / static_cast<CT>(count) : CT(0));
        }
      }
      return Status::Ok();
    });
  }

 private:
  WindowAttrs attrs_;
  bool count_include_pad_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "AveragePool", 1, kLatestOpset, AveragePoolKernel);

}  // namespace onyx
