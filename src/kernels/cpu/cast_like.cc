// CastLike: y = input 0 converted to the element type of input 1 (target_type), as Cast does.
#include "kernels/convert.h"
#include "kernels/unary.h"

namespace onyx {
namespace {

class CastLikeKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(options_, cast_options_from_node(info, "CastLike"));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, unary_input(ctx));
    if (!ctx.has_input(1) || !ctx.input_value(1).is_tensor())
      return invalid_argument("CastLike: input 1 (target_type) must be a tensor, got ", ctx.input_value(1).describe());
    const DataType to = ctx.input(1).dtype();
    if (x->dtype() == to) {
      ctx.set_output(0, Value(*x));
      return Status::Ok();
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, to, x->shape()));
    return convert_elements(*x, *y, options_);
  }

 private:
  CastOptions options_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "CastLike", 15, kLatestOpset, CastLikeKernel);

}  // namespace onyx
