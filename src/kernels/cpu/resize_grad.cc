// ResizeGrad (ai.onyx.training): the gradient of Resize (opset 11 on) with respect to X, from
// inputs (X, roi, scales, sizes, dY) — Resize's own four, which fix the resize exactly as the
// forward ran it, then dY — and Resize's attributes, read as Resize-`forward_opset` defines
// them. Resize is linear in X and separable, each axis a 1-D filter (resize_common.h), so dX is
// the filters' transposes applied to dY axis by axis: every output position hands dY times
// its weight back to the input indices it read (positions tf_crop_and_resize extrapolated
// read none). Any mode; float32 and float64.
#include <numeric>

#include "core/parallel.h"
#include "kernels/resize_common.h"

namespace onyx {
namespace {

template <typename T>
Status resize_adjoint(const KernelContext& ctx, const std::vector<ResizeFilter>& filters,
                      const std::vector<ResizeAxis>& axes, const Tensor& dy, Tensor& dx) {
  Shape cur = dy.shape();
  ONYX_ASSIGN_OR_RETURN(Tensor buf_tensor, ctx.allocate_scratch(DataType::kDouble, {dy.numel()}));
  double* buf = buf_tensor.data<double>();
  const T* in = dy.data<T>();
  for (int64_t i = 0; i < dy.numel(); ++i) buf[i] = double(in[i]);
  for (size_t d = 0; d < cur.size(); ++d) {
    const ResizeFilter& f = filters[d];
    if (f.identity) continue;
    const int64_t n_out = cur[d], n_in = axes[d].in_len;
    int64_t outer = 1, inner = 1;
    for (size_t e = 0; e < cur.size(); ++e) {
      if (e < d) outer *= cur[e];
      if (e > d) inner *= cur[e];
    }
    ONYX_ASSIGN_OR_RETURN(Tensor next_tensor, ctx.allocate_scratch(DataType::kDouble, {outer * n_in * inner}, true));
    double* next = next_tensor.data<double>();
    // One block of the outer dims per task: the scatter within a block stays on one thread.
    parallel_for(outer, std::max<int64_t>(1, 4096 / std::max<int64_t>(n_out * inner * f.k, 1)),
                 [&](int64_t begin, int64_t end) {
      for (int64_t ob = begin; ob < end; ++ob)
        for (int64_t o = 0; o < n_out; ++o) {
          if (f.outside[size_t(o)]) continue;
          const double* src = &buf[size_t((ob * n_out + o) * inner)];
          for (int64_t j = 0; j < f.k; ++j) {
            const double w = f.weight[size_t(o * f.k + j)];
            if (w == 0) continue;
            double* dst = &next[size_t((ob * n_in + f.index[size_t(o * f.k + j)]) * inner)];
            for (int64_t i = 0; i < inner; ++i) dst[i] += w * src[i];
          }
        }
    });
    buf_tensor = std::move(next_tensor);
    buf = next;
    cur[d] = n_in;
  }
  T* out = dx.data<T>();
  for (int64_t i = 0; i < dx.numel(); ++i) out[i] = T(buf[i]);
  return Status::Ok();
}

class ResizeGradKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const int64_t opset = info.attr_int("forward_opset", 0);
    if (opset < 11) return invalid_model("ResizeGrad needs forward_opset 11 or later, got ", opset);
    if (info.num_inputs() != 5 || !info.has_input(4))
      return invalid_model("ResizeGrad takes (X, roi, scales, sizes, dY), got ", info.num_inputs(), " inputs");
    ONYX_ASSIGN_OR_RETURN(attrs_, parse_resize_attrs(info, /*legacy=*/false, opset));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& dy = ctx.input(4);
    if (dy.dtype() != DataType::kFloat && dy.dtype() != DataType::kDouble)
      return not_implemented("ResizeGrad for ", data_type_name(dy.dtype()), " (float32 and float64 only)");
    ONYX_ASSIGN_OR_RETURN(const std::vector<ResizeAxis> axes, resolve_resize_axes(ctx, attrs_, false, x.shape()));
    Shape expected;
    for (const ResizeAxis& a : axes) expected.push_back(a.out_len);
    if (dy.shape() != expected)
      return invalid_argument("ResizeGrad: dY is ", shape_to_string(dy.shape()), " where the resize gives ",
                              shape_to_string(expected));
    std::vector<ResizeFilter> filters;
    for (const ResizeAxis& a : axes) filters.push_back(make_resize_filter(attrs_, a));
    ONYX_ASSIGN_OR_RETURN(Tensor * dx, ctx.allocate_output_uninitialized(0, dy.dtype(), x.shape()));
    return dy.dtype() == DataType::kFloat ? resize_adjoint<float>(ctx, filters, axes, dy, *dx)
                                          : resize_adjoint<double>(ctx, filters, axes, dy, *dx);
  }

 private:
  ResizeAttrs attrs_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "ResizeGrad", 1, kLatestOpset, ResizeGradKernel);

}  // namespace onyx
