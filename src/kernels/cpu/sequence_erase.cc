// SequenceErase: the input sequence without the tensor at 'position' (default: the last).
#include "kernels/kernel.h"
#include "kernels/sequence_common.h"

namespace onyx {
namespace {

class SequenceEraseKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(const Value* seq, sequence_input(ctx, 0));
    const std::vector<Tensor>& items = seq->sequence_items();
    const int64_t n = int64_t(items.size());
    if (n == 0) return invalid_argument("SequenceErase: the sequence is empty");
    int64_t pos = n - 1;
    if (ctx.has_input(1)) {
      ONYX_ASSIGN_OR_RETURN(const Tensor* p, tensor_input(ctx, 1));
      ONYX_ASSIGN_OR_RETURN(pos, sequence_position(*p, n, /*allow_end=*/false));
    }
    std::vector<Tensor> out;
    out.reserve(items.size() - 1);
    for (int64_t i = 0; i < n; ++i)
      if (i != pos) out.push_back(items[size_t(i)]);
    ctx.set_output(0, Value::sequence(std::move(out), seq->sequence_elem_type()));
    return Status::Ok();
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "SequenceErase", 11, kLatestOpset, SequenceEraseKernel);

}  // namespace onyx
