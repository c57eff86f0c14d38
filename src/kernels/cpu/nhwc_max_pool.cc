// NhwcMaxPool (com.microsoft): MaxPool over a channels-last X (N, H, W, C) -> Y (N, H', W', C),
// float32, through oneDNN's pooling. MaxPool's attributes; storage_order must be 0; no Indices.
#include "kernels/kernel.h"
#include "kernels/onednn_pool.h"
#include "kernels/pool_common.h"

namespace onyx {
namespace {

class NhwcMaxPoolKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(parse_pool_attrs(info, &attrs_));
    if (info.attr_int("storage_order", 0) != 0) return invalid_model("NhwcMaxPool takes storage_order 0 only");
    if (info.num_outputs() > 1) return invalid_model("NhwcMaxPool has no Indices output");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::kFloat)
      return not_implemented("NhwcMaxPool (com.microsoft, opset 1) runs float32 only, got ", x.describe());
    if (x.rank() != 4) return invalid_argument("NhwcMaxPool takes a rank-4 X (N, H, W, C), got ", x.describe());
    const Shape x_nchw{x.dim(0), x.dim(3), x.dim(1), x.dim(2)};
    ONYX_ASSIGN_OR_RETURN(WindowGeometry g, resolve_pool(attrs_, x_nchw));
    if (!onednn::MaxPool::supports(g))
      return not_implemented("NhwcMaxPool with dilations or windows lying wholly in the padding");
    if (!pool_work_bounded(g))
      return not_implemented("NhwcMaxPool with a window of ", shape_to_string(g.kernel), " over an input of ",
                             shape_to_string(g.in), " (far more taps than elements: run MaxPool unconverted)");
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), Shape{x.dim(0), g.out[0], g.out[1], x.dim(3)}));
    if (y->numel() == 0) return Status::Ok();
    return pool_.run(x_nchw, g, x.data<float>(), y->data<float>());
  }

 private:
  WindowAttrs attrs_;
  onednn::MaxPool pool_{true};
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "NhwcMaxPool", 1, kLatestOpset, NhwcMaxPoolKernel);

}  // namespace onyx
