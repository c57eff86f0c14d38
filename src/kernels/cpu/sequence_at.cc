// SequenceAt: the tensor at 'position' in the input sequence (negative counts from the back).
#include "kernels/kernel.h"
#include "kernels/sequence_common.h"

namespace onyx {
namespace {

class SequenceAtKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(const Value* seq, sequence_input(ctx, 0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* p, tensor_input(ctx, 1));
    const std::vector<Tensor>& items = seq->sequence_items();
    ONYX_ASSIGN_OR_RETURN(int64_t pos, sequence_position(*p, int64_t(items.size()), /*allow_end=*/false));
    // Tensors are never written after they are produced, so sharing the element is a copy.
    ctx.set_output(0, Value(items[size_t(pos)]));
    return Status::Ok();
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "SequenceAt", 11, kLatestOpset, SequenceAtKernel);

}  // namespace onyx
