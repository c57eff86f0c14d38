// Gather: picks slices along 'axis' by index. Output shape is
// data.shape[:axis] + indices.shape + data.shape[axis+1:]; negative indices count from the
// end and out-of-range indices are rejected.
#include "kernels/broadcast.h"
#include "kernels/element_copy.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class GatherKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", 0);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    const Tensor& indices_t = ctx.input(1);
    ONYX_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_, data.rank()));
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> indices, read_int_list(indices_t, "indices"));
    const int64_t dim = data.dim(axis);
    for (int64_t& i : indices) ONYX_RETURN_IF_ERROR(normalize_index(i, dim));

    Shape out_shape(data.shape().begin(), data.shape().begin() + axis);
    out_shape.insert(out_shape.end(), indices_t.shape().begin(), indices_t.shape().end());
    out_shape.insert(out_shape.end(), data.shape().begin() + axis + 1, data.shape().end());
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, data.dtype(), out_shape));
    if (y->numel() == 0) return Status::Ok();

    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= data.dim(d);
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < data.rank(); ++d) inner *= data.dim(d);
    const int64_t n = int64_t(indices.size());
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < n; ++j)
        copy_elements(data, (o * dim + indices[size_t(j)]) * inner, *y, (o * n + j) * inner, inner);
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Gather", 1, kLatestOpset, GatherKernel);

}  // namespace onyx
