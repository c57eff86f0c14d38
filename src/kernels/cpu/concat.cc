// Concat: joins its inputs along 'axis' (default 1 before opset 4, required after; negative
// from opset 11). Inputs share dtype and rank and agree on every other dim.
#include <algorithm>
#include <vector>

#include "core/parallel.h"
#include "kernels/element_copy.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class ConcatKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    if (!info.has_attr("axis") && info.opset() >= 4) return invalid_model("Concat needs an 'axis' attribute");
    axis_ = info.attr_int("axis", 1);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const int n = ctx.num_inputs();
    if (n < 1 || !ctx.has_input(0)) return invalid_argument("Concat needs at least one input");
    const Tensor& first = ctx.input(0);
    const int64_t rank = first.rank();
    int64_t axis = axis_;
    if (axis < -rank || axis >= rank)
      return invalid_argument("Concat: axis ", axis_, " is out of range for ", first.describe());
    if (axis < 0) axis += rank;
    Shape out_shape = first.shape();
    out_shape[size_t(axis)] = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx.input(i);
      if (!t.defined() || t.dtype() != first.dtype() || t.rank() != rank)
        return invalid_argument("Concat: input ", i, " (", t.describe(), ") does not match ", first.describe());
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis && t.dim(d) != first.dim(d))
          return invalid_argument("Concat: input ", i, " (", t.describe(), ") does not match ", first.describe(),
                                  " outside axis ", axis);
      out_shape[size_t(axis)] += t.dim(axis);
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, first.dtype(), out_shape));
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= out_shape[size_t(d)];
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < rank; ++d) inner *= out_shape[size_t(d)];
    const int64_t out_row = out_shape[size_t(axis)] * inner;
    if (first.dtype() != DataType::kString && !is_packed_type(first.dtype()) && y->numel() > 0) {
      // Output rows in turn, each the inputs' rows side by side, as words of the element's size.
      return dispatch_by_size(first.dtype(), [&]<typename U>() -> Status {
        std::vector<const U*> from(static_cast<size_t>(n));
        std::vector<int64_t> widths(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) {
          from[size_t(i)] = ctx.input(i).data<U>();
          widths[size_t(i)] = ctx.input(i).dim(axis) * inner;
        }
        U* out = y->data<U>();
        parallel_for(outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(out_row, 1)), [&](int64_t begin, int64_t end) {
          for (int64_t o = begin; o < end; ++o) {
            U* to = out + o * out_row;
            for (int i = 0; i < n; ++i) {
              const int64_t w = widths[size_t(i)];
              const U* src = from[size_t(i)] + o * w;
              for (int64_t k = 0; k < w; ++k) to[k] = src[k];
              to += w;
            }
          }
        });
        return Status::Ok();
      });
    }
    int64_t col = 0;  // where the current input starts inside an output row
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx.input(i);
      const int64_t row = t.dim(axis) * inner;
      if (row > 0)
        for (int64_t o = 0; o < outer; ++o) copy_elements(t, o * row, *y, o * out_row + col, row);
      col += row;
    }
    return Status::Ok();
  }

 private:
  int64_t axis_ = 1;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Concat", 1, kLatestOpset, ConcatKernel);

}  // namespace onyx
