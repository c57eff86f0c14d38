// NegativeLogLikelihoodLoss: the (weighted) negative log likelihood of `target` classes under
// log-probabilities `input` (N, C, d1..dk), reduced by `reduction` (see loss_common.h).
#include "kernels/loss_common.h"

namespace onyx {
namespace {

class NegativeLogLikelihoodLossKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(attrs_, parse_loss_attrs(info));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    const Tensor& target = ctx.input(1);
    const Tensor& weight = ctx.input(2);
    ONYX_ASSIGN_OR_RETURN(const LossDims dims, loss_dims(input, target, weight));
    ONYX_ASSIGN_OR_RETURN(Tensor* out, ctx.allocate_output(0, input.dtype(), loss_output_shape(target, attrs_.reduction)));
    return dispatch<ONYX_FLOAT_TYPES>(input.dtype(), [&]<typename T>() -> Status {
      const T* x = input.data<T>();
      return negative_log_likelihood<T>(dims, [x](int64_t i) { return double(compute_t<T>(x[i])); }, target, weight,
                                        attrs_, *out);
    });
  }

 private:
  LossAttrs attrs_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "NegativeLogLikelihoodLoss", 12, kLatestOpset, NegativeLogLikelihoodLossKernel);

}  // namespace onyx
