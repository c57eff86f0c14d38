// AveragePoolGrad (ai.onyx.training): the gradient of AveragePool's X, from (dY, X) and
// AveragePool's attributes (kernel_shape, strides, pads or auto_pad, dilations, ceil_mode,
// count_include_pad). X gives the geometry, so any spatial sizes known only at run time work:
// every output's dY, divided by the count its window divided by, is added to each input
// position the window covered (pool_common.h's window tables). float32 and float64.
#include "kernels/pool_common.h"

#include "core/parallel.h"

namespace onyx {
namespace {

template <typename T>
void spread(const PoolWindows& windows, const WindowGeometry& g, bool count_include_pad, int64_t planes, const T* dy,
            T* dx) {
  const int64_t in = g.in_size(), out = g.out_size();
  parallel_for(planes, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, out * g.kernel_size())),
               [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      T* plane = dx + p * in;
      std::fill(plane, plane + in, T(0));
      for (int64_t o = 0; o < out; ++o) {
        const int64_t count = count_include_pad ? windows.padded_count(o) : windows.valid_count(o);
        if (count <= 0) continue;
        const T share = dy[p * out + o] / T(count);
        windows.for_each_tap(o, [&](int64_t i) { plane[i] += share; });
      }
    }
  });
}

class AveragePoolGradKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(parse_pool_attrs(info, &attrs_));
    count_include_pad_ = info.attr_int("count_include_pad", 0) != 0;
    if (info.num_inputs() != 2) return invalid_model("AveragePoolGrad takes (dY, X)");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& dy = ctx.input(0);
    const Tensor& x = ctx.input(1);
    if (dy.dtype() != x.dtype() || (x.dtype() != DataType::kFloat && x.dtype() != DataType::kDouble))
      return not_implemented("AveragePoolGrad for ", data_type_name(x.dtype()), " (float32 and float64 only)");
    ONYX_ASSIGN_OR_RETURN(WindowGeometry g, resolve_pool(attrs_, x.shape()));
    const int64_t planes = x.dim(0) * x.dim(1);
    Shape expected{x.dim(0), x.dim(1)};
    expected.insert(expected.end(), g.out.begin(), g.out.end());
    if (dy.shape() != expected)
      return invalid_argument("AveragePoolGrad: dY is ", shape_to_string(dy.shape()), " where the pool gives ",
                              shape_to_string(expected));
    ONYX_ASSIGN_OR_RETURN(Tensor * dx, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    if (x.numel() == 0) return Status::Ok();
    PoolWindows windows(g);
    if (x.dtype() == DataType::kFloat)
      spread(windows, g, count_include_pad_, planes, dy.data<float>(), dx->data<float>());
    else
      spread(windows, g, count_include_pad_, planes, dy.data<double>(), dx->data<double>());
    return Status::Ok();
  }

 private:
  WindowAttrs attrs_;
  bool count_include_pad_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "AveragePoolGrad", 1, kLatestOpset, AveragePoolGradKernel);

}  // namespace onyx
