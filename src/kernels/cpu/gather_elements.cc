// GatherElements: out[i_0..i_k] = data[i_0..indices[i_0..i_k]..i_k], the index replacing the
// coordinate on 'axis'. indices has data's rank and no larger dims off the axis; negative
// indices count from the end and out-of-range indices are rejected.
#include "kernels/broadcast.h"
#include "kernels/element_copy.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class GatherElementsKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", 0);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    const Tensor& indices_t = ctx.input(1);
    const int64_t rank = data.rank();
    ONYX_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_, rank));
    if (indices_t.rank() != rank)
      return invalid_argument("GatherElements: indices ", indices_t.describe(), " and data ", data.describe(),
                              " differ in rank");
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && indices_t.dim(d) > data.dim(d))
        return invalid_argument("GatherElements: indices ", indices_t.describe(), " exceed data ", data.describe(),
                                " on dim ", d);
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> indices, read_int_list(indices_t, "indices"));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, data.dtype(), indices_t.shape()));
    if (y->numel() == 0) return Status::Ok();

    const std::vector<int64_t> strides = shape_strides(data.shape());
    const int64_t dim = data.dim(axis);
    return dispatch_by_size(data.dtype(), [&]<typename U>() -> Status {
      const U* in = data.data<U>();
      U* out = y->data<U>();
      std::vector<int64_t> idx(size_t(rank), 0);
      int64_t base = 0;  // data offset of idx with the axis coordinate at 0
      for (int64_t i = 0; i < y->numel(); ++i) {
        int64_t k = indices[size_t(i)];
        ONYX_RETURN_IF_ERROR(normalize_index(k, dim));
        out[i] = in[base + k * strides[size_t(axis)]];
        for (int64_t d = rank - 1; d >= 0; --d) {
          if (d != axis) base += strides[size_t(d)];
          if (++idx[size_t(d)] < indices_t.dim(d)) break;
          if (d != axis) base -= strides[size_t(d)] * indices_t.dim(d);
          idx[size_t(d)] = 0;
        }
      }
      return Status::Ok();
    });
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "GatherElements", 1, kLatestOpset, GatherElementsKernel);

}  // namespace onyx
