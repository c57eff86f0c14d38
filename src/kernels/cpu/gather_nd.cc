// GatherND: each row of the last indices dim (length k) addresses a slice of data after the
// first batch_dims dims, which data and indices share. Output shape is
// indices.shape[:-1] + data.shape[batch_dims + k:]. Negative indices count from the end and
// out-of-range indices are rejected.
#include "kernels/element_copy.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class GatherNDKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    batch_dims_ = info.attr_int("batch_dims", 0);
    if (batch_dims_ < 0) return invalid_model("GatherND: batch_dims must be >= 0");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    const Tensor& indices_t = ctx.input(1);
    const int64_t r = data.rank(), q = indices_t.rank(), b = batch_dims_;
    if (q < 1 || r < 1 || b >= q || b >= r)
      return invalid_argument("GatherND: batch_dims=", b, " does not fit data ", data.describe(), " and indices ",
                              indices_t.describe());
    const int64_t k = indices_t.dim(q - 1);
    if (k < 1 || k > r - b)
      return invalid_argument("GatherND: the last dim of indices ", indices_t.describe(), " must be in [1, ", r - b,
                              "]");
    for (int64_t d = 0; d < b; ++d)
      if (data.dim(d) != indices_t.dim(d))
        return invalid_argument("GatherND: batch dims of data ", data.describe(), " and indices ",
                                indices_t.describe(), " differ");
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> indices, read_int_list(indices_t, "indices"));

    Shape out_shape(indices_t.shape().begin(), indices_t.shape().end() - 1);
    out_shape.insert(out_shape.end(), data.shape().begin() + b + k, data.shape().end());
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, data.dtype(), out_shape));

    const std::vector<int64_t> strides = shape_strides(data.shape());
    int64_t batches = 1;
    for (int64_t d = 0; d < b; ++d) batches *= data.dim(d);
    int64_t tuples = 1;  // index tuples per batch
    for (int64_t d = b; d < q - 1; ++d) tuples *= indices_t.dim(d);
    int64_t slice = 1;
    for (int64_t d = b + k; d < r; ++d) slice *= data.dim(d);
    const int64_t batch_stride = b > 0 ? strides[size_t(b - 1)] : 0;
    for (int64_t bi = 0; bi < batches; ++bi) {
      for (int64_t t = 0; t < tuples; ++t) {
        const int64_t row = bi * tuples + t;
        int64_t offset = bi * batch_stride;
        for (int64_t j = 0; j < k; ++j) {
          int64_t i = indices[size_t(row * k + j)];
          ONYX_RETURN_IF_ERROR(normalize_index(i, data.dim(b + j)));
          offset += i * strides[size_t(b + j)];
        }
        copy_elements(data, offset, *y, row * slice, slice);
      }
    }
    return Status::Ok();
  }

 private:
  int64_t batch_dims_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "GatherND", 1, kLatestOpset, GatherNDKernel);

}  // namespace onyx
