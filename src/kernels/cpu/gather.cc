// Gather: picks slices along 'axis' by index. Output shape is
// data.shape[:axis] + indices.shape + data.shape[axis+1:]; negative indices count from the
// end and out-of-range indices are rejected.
#include <algorithm>

#include "core/parallel.h"
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
    if (data.dtype() == DataType::kString || is_packed_type(data.dtype())) {
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < n; ++j)
          copy_elements(data, (o * dim + indices[size_t(j)]) * inner, *y, (o * n + j) * inner, inner);
      return Status::Ok();
    }
    // Words of the element's size, copied in place (a column of a table is one word a row).
    return dispatch_by_size(data.dtype(), [&]<typename U>() -> Status {
      const U* in = data.data<U>();
      U* out = y->data<U>();
      parallel_for(outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(n * inner, 1)), [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; ++o)
          for (int64_t j = 0; j < n; ++j) {
            const U* from = in + (o * dim + indices[size_t(j)]) * inner;
            U* to = out + (o * n + j) * inner;
            for (int64_t k = 0; k < inner; ++k) to[k] = from[k];
          }
      });
      return Status::Ok();
    });
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Gather", 1, kLatestOpset, GatherKernel);

}  // namespace onyx
