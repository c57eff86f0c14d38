// Split: cuts the input along 'axis' into one piece per output. Piece sizes come from
// 'split' (an attribute before opset 13, or input 1 at opset 1 and from 13); without it the
// dim is split evenly, and from opset 18 'num_outputs' allows a smaller last piece.
#include "kernels/broadcast.h"
#include "kernels/element_copy.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"
#include "kernels/split_sizes.h"

namespace onyx {
namespace {

class SplitKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", 0);
    split_from_input_ = info.opset() >= 13 || info.opset() == 1;
    if (info.opset() < 13 && info.has_attr("split")) {
      has_split_attr_ = true;
      split_attr_ = info.attr_ints("split");
    }
    if (info.opset() >= 18 && info.has_attr("num_outputs")) {
      num_outputs_ = info.attr_int("num_outputs", 0);
      if (num_outputs_ != info.num_outputs())
        return invalid_model("Split: num_outputs=", num_outputs_, " but the node has ", info.num_outputs(), " outputs");
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_, x.rank()));
    const int64_t dim = x.dim(axis);
    const int64_t n = ctx.num_outputs();
    std::vector<int64_t> given;
    const bool from_input = split_from_input_ && ctx.has_input(1);
    if (from_input) {
      ONYX_ASSIGN_OR_RETURN(given, read_int_list(ctx.input(1), "split"));
    }
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> split,
                          split_sizes(x, axis, n, from_input ? &given : has_split_attr_ ? &split_attr_ : nullptr,
                                      num_outputs_ > 0));

    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
    int64_t start = 0;
    for (int64_t i = 0; i < n; ++i) {
      Shape shape = x.shape();
      shape[size_t(axis)] = split[size_t(i)];
      if (ctx.output_requested(int(i))) {
        ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(int(i), x.dtype(), shape));
        const int64_t row = split[size_t(i)] * inner;
        for (int64_t o = 0; o < outer && row > 0; ++o)
          copy_elements(x, (o * dim + start) * inner, *y, o * row, row);
      }
      start += split[size_t(i)];
    }
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
  bool split_from_input_ = false;
  bool has_split_attr_ = false;
  std::vector<int64_t> split_attr_;
  int64_t num_outputs_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Split", 1, kLatestOpset, SplitKernel);

}  // namespace onyx
