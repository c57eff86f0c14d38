// SequenceInsert: the input sequence with 'tensor' inserted at 'position' (default: the end).
#include "kernels/kernel.h"
#include "kernels/sequence_common.h"

namespace onyx {
namespace {

class SequenceInsertKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(const Value* seq, sequence_input(ctx, 0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* t, tensor_input(ctx, 1));
    const std::vector<Tensor>& items = seq->sequence_items();
    const int64_t n = int64_t(items.size());
    if (!sequence_accepts(seq->sequence_elem_type(), t->dtype()))
      return invalid_argument("cannot insert ", t->describe(), " into ", seq->describe());
    int64_t pos = n;
    if (ctx.has_input(2)) {
      ONYX_ASSIGN_OR_RETURN(const Tensor* p, tensor_input(ctx, 2));
      ONYX_ASSIGN_OR_RETURN(pos, sequence_position(*p, n, /*allow_end=*/true));
    }
    std::vector<Tensor> out;
    out.reserve(items.size() + 1);
    out.insert(out.end(), items.begin(), items.begin() + pos);
    out.push_back(*t);
    out.insert(out.end(), items.begin() + pos, items.end());
    ctx.set_output(0, Value::sequence(std::move(out), t->dtype()));
    return Status::Ok();
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "SequenceInsert", 11, kLatestOpset, SequenceInsertKernel);

}  // namespace onyx
