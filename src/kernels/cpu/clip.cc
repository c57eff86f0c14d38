// Clip: y = min(max(x, min), max) elementwise; when min > max every element becomes max.
// NaN inputs stay NaN. Bounds come from the 'min'/'max' attributes before opset 11 and from
// the optional one-element inputs 1 and 2 (same type as x) from opset 11 on; an absent bound
// does not clip.
#include <limits>

#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

// A float attribute as compute type C (saturating for integers).
template <typename C>
C from_attr(float v) {
  if constexpr (std::is_integral_v<C>) {
    return saturate_cast<C>(double(v));
  } else {
    return static_cast<C>(v);
  }
}

class ClipKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    legacy_ = info.opset() < 11;
    if (legacy_) {
      has_min_ = info.has_attr("min");
      has_max_ = info.has_attr("max");
      min_attr_ = info.attr_float("min", 0.f);
      max_attr_ = info.attr_float("max", 0.f);
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_RETURN_IF_ERROR(
        check_tensor_inputs(ctx, legacy_ ? 1 : std::max(1, std::min(ctx.num_inputs(), 3)), 1));
    ONYX_RETURN_IF_ERROR(check_same_dtype(ctx));
    const Tensor& x = ctx.input(0);
    const bool has_min = legacy_ ? has_min_ : ctx.has_input(1);
    const bool has_max = legacy_ ? has_max_ : ctx.has_input(2);
    for (int i = 1; i <= 2 && !legacy_; ++i) {
      if (ctx.has_input(i) && ctx.input(i).numel() != 1)
        return invalid_argument("Clip bound input ", i, " must hold one element, got ",
                                ctx.input(i).describe());
    }
    return dispatch<ONYX_NUMERIC_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using C = compute_t<T>;
      C lo = std::numeric_limits<C>::lowest();
      C hi = std::numeric_limits<C>::max();
      if (has_min) lo = legacy_ ? from_attr<C>(min_attr_) : to_compute(ctx.input(1).data<T>()[0]);
      if (has_max) hi = legacy_ ? from_attr<C>(max_attr_) : to_compute(ctx.input(2).data<T>()[0]);
      ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
      const T* in = x.data<T>();
      T* out = y->data<T>();
      const int64_t n = x.numel();
      parallel_for(n, int64_t(1) << 15, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          C v = to_compute(in[i]);
          if (v < lo) v = lo;
          if (v > hi) v = hi;
          out[i] = static_cast<T>(v);
        }
      });
      return Status::Ok();
    });
  }

 private:
  bool legacy_ = false;
  bool has_min_ = false;
  bool has_max_ = false;
  float min_attr_ = 0;
  float max_attr_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Clip", 1, kLatestOpset, ClipKernel);

}  // namespace onyx
