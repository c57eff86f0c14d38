// PRelu: y = x < 0 ? slope * x : x elementwise. Slope broadcasts to X's shape (numpy rules,
// one direction: the output has X's shape). Before opset 7 slope may also be per channel: a
// slope whose shape matches X's dims from axis 1 (e.g. [C] against [N, C, H, W]) is aligned
// there, as Caffe-style exporters produced.
#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

class PReluKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    legacy_ = info.opset() < 7;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_RETURN_IF_ERROR(check_tensor_inputs(ctx, 2));
    ONYX_RETURN_IF_ERROR(check_same_dtype(ctx));
    const Tensor& x = ctx.input(0);
    const Tensor& slope = ctx.input(1);
    ONYX_ASSIGN_OR_RETURN(Shape slope_view, slope_shape(x.shape(), slope.shape()));
    return dispatch<ONYX_NUMERIC_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), x.shape()));
      binary_loop(x.data<T>(), x.shape(), slope.data<T>(), slope_view, y->data<T>(), x.shape(),
                  [](auto v, auto s) {
                    if constexpr (std::is_unsigned_v<decltype(v)>) {
                      return v;
                    } else {
                      return v < 0 ? wrap_mul(s, v) : v;
                    }
                  });
      return Status::Ok();
    });
  }

 private:
  // The shape slope is read as, broadcasting onto x.
  Result<Shape> slope_shape(const Shape& x, const Shape& slope) const {
    if (legacy_ && slope.size() + 1 <= x.size() && shape_size(slope) != 1) {
      bool channel = true;
      for (size_t i = 0; i < slope.size(); ++i) channel = channel && slope[i] == x[i + 1];
      if (channel) {
        Shape view(x.size(), 1);
        for (size_t i = 0; i < slope.size(); ++i) view[i + 1] = slope[i];
        return view;
      }
    }
    ONYX_ASSIGN_OR_RETURN(Shape out, broadcast_shapes({x, slope}));
    if (out != x)
      return invalid_argument("slope of shape ", shape_to_string(slope), " does not broadcast to X of shape ",
                              shape_to_string(x));
    return slope;
  }

  bool legacy_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "PRelu", 1, kLatestOpset, PReluKernel);

}  // namespace onyx
