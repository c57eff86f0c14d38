// SequenceLength: the number of tensors in the input sequence, as an int64 scalar.
#include "kernels/kernel.h"
#include "kernels/sequence_common.h"

namespace onyx {
namespace {

class SequenceLengthKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(const Value* seq, sequence_input(ctx, 0));
    ONYX_ASSIGN_OR_RETURN(Tensor* out, ctx.allocate_output(0, DataType::kInt64, {}));
    *out->data<int64_t>() = int64_t(seq->sequence_items().size());
    return Status::Ok();
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "SequenceLength", 11, kLatestOpset, SequenceLengthKernel);

}  // namespace onyx
