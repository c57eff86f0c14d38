// SequenceConstruct: a sequence of the input tensors, in order; all share one element type.
#include "kernels/kernel.h"
#include "kernels/sequence_common.h"

namespace onyx {
namespace {

class SequenceConstructKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    if (info.num_inputs() < 1) return invalid_model("SequenceConstruct needs at least one input");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    std::vector<Tensor> items;
    items.reserve(size_t(ctx.num_inputs()));
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      ONYX_ASSIGN_OR_RETURN(const Tensor* t, tensor_input(ctx, i));
      if (!items.empty() && t->dtype() != items[0].dtype())
        return invalid_argument("SequenceConstruct inputs differ in type: ", items[0].describe(), " and ",
                                t->describe());
      items.push_back(*t);
    }
    const DataType elem = items[0].dtype();
    ctx.set_output(0, Value::sequence(std::move(items), elem));
    return Status::Ok();
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "SequenceConstruct", 11, kLatestOpset, SequenceConstructKernel);

}  // namespace onyx
