// Concat: joins its inputs along 'axis' (default 1 before opset 4, required after; negative
// from opset 11). Inputs share dtype and rank and agree on every other dim.
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
