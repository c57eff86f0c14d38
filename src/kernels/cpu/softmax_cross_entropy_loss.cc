// SoftmaxCrossEntropyLoss: the negative log likelihood of `labels` under log_softmax(scores)
// taken over the class axis 1 of scores (N, C, d1..dk), reduced by `reduction` (see
// loss_common.h). The optional second output is that log_softmax, shaped like scores.
#include <cmath>
#include <vector>

#include "kernels/loss_common.h"

namespace onyx {
namespace {

class SoftmaxCrossEntropyLossKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(attrs_, parse_loss_attrs(info));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& scores = ctx.input(0);
    const Tensor& labels = ctx.input(1);
    const Tensor& weight = ctx.input(2);
    ONYX_ASSIGN_OR_RETURN(const LossDims dims, loss_dims(scores, labels, weight));
    ONYX_ASSIGN_OR_RETURN(Tensor* out, ctx.allocate_output(0, scores.dtype(), loss_output_shape(labels, attrs_.reduction)));
    return dispatch<ONYX_FLOAT_TYPES>(scores.dtype(), [&]<typename T>() -> Status {
      // log_softmax over C for every (n, d), in double.
      const T* x = scores.data<T>();
      std::vector<double> logp(size_t(scores.numel()));
      for (int64_t n = 0; n < dims.n; ++n) {
        for (int64_t d = 0; d < dims.d; ++d) {
          const int64_t base = n * dims.c * dims.d + d;
          double m = -INFINITY;
          for (int64_t c = 0; c < dims.c; ++c) m = std::max(m, double(compute_t<T>(x[base + c * dims.d])));
          double s = 0;
          for (int64_t c = 0; c < dims.c; ++c) s += std::exp(double(compute_t<T>(x[base + c * dims.d])) - m);
          const double shift = m + std::log(s);
          for (int64_t c = 0; c < dims.c; ++c)
            logp[size_t(base + c * dims.d)] = double(compute_t<T>(x[base + c * dims.d])) - shift;
        }
      }
      if (ctx.output_requested(1)) {
        ONYX_ASSIGN_OR_RETURN(Tensor* lp, ctx.allocate_output(1, scores.dtype(), scores.shape()));
        T* p = lp->data<T>();
        for (size_t i = 0; i < logp.size(); ++i) p[i] = static_cast<T>(static_cast<compute_t<T>>(logp[i]));
      }
      return negative_log_likelihood<T>(dims, [&logp](int64_t i) { return logp[size_t(i)]; }, labels, weight, attrs_,
                                        *out);
    });
  }

 private:
  LossAttrs attrs_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "SoftmaxCrossEntropyLoss", 12, kLatestOpset, SoftmaxCrossEntropyLossKernel);

}  // namespace onyx
