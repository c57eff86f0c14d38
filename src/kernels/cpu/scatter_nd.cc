// ScatterND: copies data, then writes (or with 'reduction', combines) each update slice at
// the data position named by a row of the last indices dim. With indices [..., k], updates
// has shape indices.shape[:-1] + data.shape[k:]. Negative indices count from the end;
// out-of-range ones are rejected.
#include "kernels/element_copy.h"
#include "kernels/kernel.h"
#include "kernels/scatter_common.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class ScatterNDKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(reduction_, parse_scatter_reduction(info.attr_string("reduction", "none"), info.opset()));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    const Tensor& indices_t = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    const int64_t r = data.rank(), q = indices_t.rank();
    if (q < 1) return invalid_argument("ScatterND: indices ", indices_t.describe(), " must have rank >= 1");
    const int64_t k = indices_t.dim(q - 1);
    if (k < 0 || k > r)
      return invalid_argument("ScatterND: the last dim of indices ", indices_t.describe(), " exceeds the rank of data ",
                              data.describe());
    Shape expected(indices_t.shape().begin(), indices_t.shape().end() - 1);
    expected.insert(expected.end(), data.shape().begin() + k, data.shape().end());
    if (updates.shape() != expected || updates.dtype() != data.dtype())
      return invalid_argument("ScatterND: updates ", updates.describe(), " must be ", data_type_name(data.dtype()),
                              shape_to_string(expected));
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> indices, read_int_list(indices_t, "indices"));

    const std::vector<int64_t> strides = shape_strides(data.shape());
    int64_t slice = 1;
    for (int64_t d = k; d < r; ++d) slice *= data.dim(d);
    int64_t rows = 1;  // index rows, one per update slice
    for (int64_t d = 0; d < q - 1; ++d) rows *= indices_t.dim(d);
    std::vector<int64_t> offsets(size_t(rows), 0);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < k; ++j) {
        int64_t idx = indices[size_t(i * k + j)];
        ONYX_RETURN_IF_ERROR(normalize_index(idx, data.dim(j)));
        offsets[size_t(i)] += idx * strides[size_t(j)];
      }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, data.dtype(), data.shape()));
    copy_elements(data, 0, *y, 0, data.numel());
    return scatter_blocks(updates, offsets, slice, reduction_, *y);
  }

 private:
  ScatterReduction reduction_ = ScatterReduction::kNone;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "ScatterND", 1, kLatestOpset, ScatterNDKernel);

}  // namespace onyx
