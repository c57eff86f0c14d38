// SplitToSequence: cuts the input along 'axis' into a sequence of tensors.
//  - no 'split' input: pieces of length 1, the axis dropped when keepdims = 0;
//  - scalar 'split' s > 0: pieces of length s, the last one shorter when s does not divide the dim;
//  - 1-D 'split': pieces of those lengths (>= 0), which must add up to the dim.
#include <algorithm>

#include "kernels/kernel.h"
#include "kernels/sequence_common.h"
#include "kernels/tensor_pieces.h"

namespace onyx {
namespace {

class SplitToSequenceKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", 0);
    const int64_t keepdims = info.attr_int("keepdims", 1);
    if (keepdims != 0 && keepdims != 1) return invalid_model("SplitToSequence: keepdims must be 0 or 1, got ", keepdims);
    keepdims_ = keepdims == 1;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, tensor_input(ctx, 0));
    const int64_t rank = x->rank();
    if (axis_ < -rank || axis_ >= rank)
      return invalid_argument("SplitToSequence: axis ", axis_, " is out of range for ", x->describe());
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    const int64_t dim = x->dim(axis);

    std::vector<int64_t> lengths;
    bool squeeze = false;
    if (!ctx.has_input(1)) {
      lengths.assign(size_t(dim), 1);
      squeeze = !keepdims_;
    } else {
      ONYX_ASSIGN_OR_RETURN(const Tensor* split, tensor_input(ctx, 1));
      if (split->dtype() != DataType::kInt32 && split->dtype() != DataType::kInt64)
        return invalid_argument("SplitToSequence: split must be int32 or int64, got ", split->describe());
      if (split->rank() == 0) {
        const int64_t s = split->get_int64(0);
        if (s <= 0) return invalid_argument("SplitToSequence: split must be positive, got ", s);
        for (int64_t at = 0; at < dim; at += s) lengths.push_back(std::min(s, dim - at));
      } else if (split->rank() == 1) {
        lengths = split->to_int64_vector();
        int64_t sum = 0;
        for (int64_t len : lengths) {
          if (len < 0 || len > dim - sum)
            return invalid_argument("SplitToSequence: split ", split->describe(), " does not add up to dim ", dim,
                                    " of axis ", axis);
          sum += len;
        }
        if (sum != dim)
          return invalid_argument("SplitToSequence: split lengths add up to ", sum, ", but axis ", axis, " has ", dim);
      } else {
        return invalid_argument("SplitToSequence: split must be a scalar or 1-D, got ", split->describe());
      }
    }

    std::vector<Tensor> items;
    items.reserve(lengths.size());
    int64_t at = 0;
    for (int64_t len : lengths) {
      Result<Tensor> piece = squeeze ? select_axis(*x, axis, at) : narrow_axis(*x, axis, at, len);
      if (!piece.ok()) return piece.take_status();
      items.push_back(std::move(piece).value());
      at += len;
    }
    ctx.set_output(0, Value::sequence(std::move(items), x->dtype()));
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
  bool keepdims_ = true;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "SplitToSequence", 11, kLatestOpset, SplitToSequenceKernel);

}  // namespace onyx
