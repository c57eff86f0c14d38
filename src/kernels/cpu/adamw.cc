// AdamW (ai.onyx.training, opset 1): one AdamW step of a float32 parameter, as PyTorch's
// torch.optim.AdamW computes it (decoupled weight decay, bias correction, epsilon added to
// the corrected root):
//   inputs  learning_rate (float scalar), step (int64 scalar >= 1, the step being taken),
//           X (parameter), G (gradient), M (first moment), V (second moment), one shape;
//   outputs X_new, M_new, V_new;
//   X' = X (1 - lr wd); M' = M + (1 - b1) (G - M); V' = b2 V + (1 - b2) G^2;
//   X_new = X' - lr / (1 - b1^t) * M' / (sqrt(V') / sqrt(1 - b2^t) + eps)
// attributes beta1 (0.9), beta2 (0.999), epsilon (1e-6), weight_decay (0): onnxruntime's
// training defaults. The scalars are computed in float64 once per call; each element is read
// before its output is written, so outputs may share memory with their inputs (an optimizer
// step bound in place). The arithmetic is kernels/adam_update.h's (PyTorch's AdamW form).
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "core/parallel.h"
#include "kernels/adam_update.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

// ONNX float attributes are float32: 0.999 arrives as 0.99900001287. The value meant is the
// shortest decimal that rounds to it (what the user wrote, as PyTorch keeps it in float64), so
// that 1 - beta2 is 0.001 and not 0.00099998713.
double intended(float f) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf) - 1, f);
  if (ec != std::errc()) return double(f);
  *end = '\0';
  return std::strtod(buf, nullptr);
}

class AdamWKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    beta1_ = intended(info.attr_float("beta1", 0.9f));
    beta2_ = intended(info.attr_float("beta2", 0.999f));
    epsilon_ = intended(info.attr_float("epsilon", 1e-6f));
    weight_decay_ = intended(info.attr_float("weight_decay", 0.f));
    if (!(beta1_ >= 0 && beta1_ < 1 && beta2_ >= 0 && beta2_ < 1 && epsilon_ >= 0))
      return invalid_argument("AdamW: beta1 and beta2 must lie in [0, 1) and epsilon be >= 0");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& lr_t = ctx.input(0);
    const Tensor& step_t = ctx.input(1);
    if (lr_t.numel() != 1 || lr_t.dtype() != DataType::kFloat)
      return invalid_argument("AdamW: learning_rate must be one float32, got ", lr_t.describe());
    if (step_t.numel() != 1 || step_t.dtype() != DataType::kInt64)
      return invalid_argument("AdamW: step must be one int64, got ", step_t.describe());
    const double lr = intended(lr_t.data<float>()[0]);  // 1e-3 as meant, as PyTorch keeps it
    const int64_t step = step_t.data<int64_t>()[0];
    if (step < 1) return invalid_argument("AdamW: step must be 1 or more, got ", step);
    const Tensor& x = ctx.input(2);
    for (int i = 2; i < 6; ++i) {
      const Tensor& t = ctx.input(i);
      if (t.dtype() != DataType::kFloat || t.shape() != x.shape())
        return invalid_argument("AdamW: X, G, M and V must be float32 of one shape; got ", x.describe(), " and ",
                                t.describe());
    }
    ONYX_ASSIGN_OR_RETURN(Tensor * x_new, ctx.allocate_output_uninitialized(0, DataType::kFloat, x.shape()));
    ONYX_ASSIGN_OR_RETURN(Tensor * m_new, ctx.allocate_output_uninitialized(1, DataType::kFloat, x.shape()));
    ONYX_ASSIGN_OR_RETURN(Tensor * v_new, ctx.allocate_output_uninitialized(2, DataType::kFloat, x.shape()));
    AdamHyper hyper;
    hyper.lr = lr;
    hyper.beta1 = beta1_;
    hyper.beta2 = beta2_;
    hyper.eps = epsilon_;
    hyper.weight_decay = weight_decay_;
    const AdamConstants k = adam_constants(hyper, step);
    const float* px = x.data<float>();
    const float* pg = ctx.input(3).data<float>();
    const float* pm = ctx.input(4).data<float>();
    const float* pv = ctx.input(5).data<float>();
    float* ox = x_new->data<float>();
    float* om = m_new->data<float>();
    float* ov = v_new->data<float>();
    parallel_for(x.numel(), 16384, [&](int64_t begin, int64_t end) {
      adam_span(k, px + begin, pg + begin, pm + begin, pv + begin, ox + begin, om + begin, ov + begin, end - begin);
    });
    return Status::Ok();
  }

  // Each element of X, M and V is read before its new value is written, so the optimizer can
  // update the parameters and moments in place (IoBinding, Kernel::in_place_outputs).
  std::vector<std::pair<int, int>> in_place_outputs() const override { return {{0, 2}, {1, 4}, {2, 5}}; }

 private:
  double beta1_ = 0.9, beta2_ = 0.999, epsilon_ = 1e-6, weight_decay_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "AdamW", 1, kLatestOpset, AdamWKernel);

}  // namespace onyx
