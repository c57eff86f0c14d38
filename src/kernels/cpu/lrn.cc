// LRN: local response normalisation across channels of X (N, C, D1..Dn):
//   Y = X / (bias + alpha / size * sum of X^2 over channels [c - (size-1)/2, c + ceil((size-1)/2)])^beta
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class LrnKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    if (!info.has_attr("size")) return invalid_model("attribute 'size' is required");
    size_ = info.attr_int("size", 1);
    if (size_ < 1) return invalid_model("size must be positive, got ", size_);
    alpha_ = info.attr_float("alpha", 1e-4f);
    beta_ = info.attr_float("beta", 0.75f);
    bias_ = info.attr_float("bias", 1.0f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) return invalid_argument("X must have rank 2 or more (N, C, ...), got ", x.describe());
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), x.shape()));
    const int64_t batch = x.dim(0), channels = x.dim(1);
    if (x.numel() == 0) return Status::Ok();
    const int64_t inner = x.numel() / (batch * channels);
    const int64_t before = (size_ - 1) / 2, after = size_ - 1 - before;
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using CT = compute_t<T>;
      const T* in = x.data<T>();
      T* out = y->data<T>();
      std::vector<double> sq(size_t(channels * inner));
      const double scale = double(alpha_) / double(size_);
      for (int64_t n = 0; n < batch; ++n) {
        const int64_t base = n * channels * inner;
        for (int64_t i = 0; i < channels * inner; ++i) {
          const double v = double(static_cast<CT>(in[base + i]));
          sq[size_t(i)] = v * v;
        }
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t lo = std::max<int64_t>(0, c - before), hi = std::min(channels - 1, c + after);
          for (int64_t i = 0; i < inner; ++i) {
            double sum = 0;
            for (int64_t k = lo; k <= hi; ++k) sum += sq[size_t(k * inner + i)];
            const int64_t at = base + c * inner + i;
            const double v = double(static_cast<CT>(in[at]));
            out[at] = static_cast<T>(static_cast<CT>(v / std::pow(double(bias_) + scale * sum, double(beta_))));
          }
        }
      }
      return Status::Ok();
    });
  }

 private:
  int64_t size_ = 1;
  float alpha_ = 1e-4f, beta_ = 0.75f, bias_ = 1.0f;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "LRN", 1, kLatestOpset, LrnKernel);

}  // namespace onyx
