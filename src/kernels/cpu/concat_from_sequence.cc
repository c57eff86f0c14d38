// ConcatFromSequence: joins the tensors of a non-empty sequence along 'axis'; with new_axis = 1
// they are stacked along a new dim instead (axis then ranges over [-rank - 1, rank]).
#include "kernels/kernel.h"
#include "kernels/sequence_common.h"
#include "kernels/tensor_pieces.h"

namespace onyx {
namespace {

class ConcatFromSequenceKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    if (!info.has_attr("axis")) return invalid_model("ConcatFromSequence needs the 'axis' attribute");
    axis_ = info.attr_int("axis", 0);
    const int64_t new_axis = info.attr_int("new_axis", 0);
    if (new_axis != 0 && new_axis != 1) return invalid_model("ConcatFromSequence: new_axis must be 0 or 1, got ", new_axis);
    new_axis_ = new_axis == 1;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(const Value* seq, sequence_input(ctx, 0));
    const std::vector<Tensor>& items = seq->sequence_items();
    if (items.empty()) return invalid_argument("ConcatFromSequence: the sequence is empty");
    const int64_t rank = items[0].rank();
    const int64_t out_rank = new_axis_ ? rank + 1 : rank;
    if (axis_ < -out_rank || axis_ >= out_rank)
      return invalid_argument("ConcatFromSequence: axis ", axis_, " is out of range for ", items[0].describe(),
                              new_axis_ ? " with new_axis" : "");
    const int64_t axis = axis_ < 0 ? axis_ + out_rank : axis_;
    ONYX_ASSIGN_OR_RETURN(Tensor out, join_axis(items, axis, new_axis_, items[0].dtype()));
    ctx.set_output(0, Value(std::move(out)));
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
  bool new_axis_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "ConcatFromSequence", 11, kLatestOpset, ConcatFromSequenceKernel);

}  // namespace onyx
