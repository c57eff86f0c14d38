// Compress: keeps the slices along 'axis' whose condition entry is true (without 'axis', the
// elements of the flattened input). A condition shorter than the dim counts as false past
// its end; a longer one may only hold false there.
#include "kernels/element_copy.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class CompressKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    has_axis_ = info.has_attr("axis");
    axis_ = info.attr_int("axis", 0);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& cond = ctx.input(1);
    if (cond.dtype() != DataType::kBool || cond.rank() != 1)
      return invalid_argument("Compress: condition must be a 1-D bool tensor, got ", cond.describe());
    int64_t axis = 0, outer = 1, dim = x.numel(), inner = 1;
    if (has_axis_) {
      axis = axis_;
      if (axis < -x.rank() || axis >= x.rank())
        return invalid_argument("Compress: axis ", axis_, " is out of range for ", x.describe());
      if (axis < 0) axis += x.rank();
      dim = x.dim(axis);
      for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
      for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
    }
    const bool* c = cond.data<bool>();
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < cond.numel(); ++i) {
      if (!c[i]) continue;
      if (i >= dim) return invalid_argument("Compress: condition ", cond.describe(), " selects past dim ", dim);
      kept.push_back(i);
    }
    Shape out_shape = {int64_t(kept.size())};
    if (has_axis_) {
      out_shape = x.shape();
      out_shape[size_t(axis)] = int64_t(kept.size());
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), out_shape));
    const int64_t n = int64_t(kept.size());
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < n; ++j)
        copy_elements(x, (o * dim + kept[size_t(j)]) * inner, *y, (o * n + j) * inner, inner);
    return Status::Ok();
  }

 private:
  bool has_axis_ = false;
  int64_t axis_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Compress", 1, kLatestOpset, CompressKernel);

}  // namespace onyx
