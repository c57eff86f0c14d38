// LpPool: (sum over each window of |x|^p)^(1/p) for X (N, C, D1..Dn); taps in the padding
// contribute nothing.
#include <cmath>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/pool_common.h"

namespace onyx {
namespace {

class LpPoolKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(parse_window_attrs(info, &attrs_));
    if (attrs_.kernel_shape.empty()) return invalid_model("kernel_shape is required");
    // 'p' is a float in LpPool-1 and an int from LpPool-2.
    const ir::Attribute* p = info.attr("p");
    p_ = !p ? 2.0 : p->type == ir::Attribute::Type::kFloat ? double(p->f) : double(p->i);
    if (!(p_ > 0) || !std::isfinite(p_)) return invalid_model("p must be positive, got ", p_);
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
      const CT p = static_cast<CT>(p_);
      const T* in = x.data<T>();
      T* out = y->data<T>();
      for (int64_t o = 0; o < out_size; ++o) {
        for (int64_t c = 0; c < planes; ++c) {
          const T* plane = in + c * in_size;
          CT sum = 0;
          windows.for_each_tap(o, [&](int64_t i) {
            const CT v = std::fabs(static_cast<CT>(plane[i]));
            sum += p_ == 1 ? v : p_ == 2 ? v * v : CT(std::pow(v, p));
          });
          out[c * out_size + o] = static_cast<T>(p_ == 1   ? sum
                                                 : p_ == 2 ? std::sqrt(sum)
                                                           : CT(std::pow(sum, CT(1) / p)));
        }
      }
      return Status::Ok();
    });
  }

 private:
  WindowAttrs attrs_;
  double p_ = 2;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "LpPool", 1, kLatestOpset, LpPoolKernel);

}  // namespace onyx
