// InstanceNormalization: for X (N, C, D1..Dn), each (n, c) plane is normalised by its own mean
// and population variance: Y = scale[c] * (X - mean) / sqrt(var + epsilon) + B[c].
#include <cmath>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class InstanceNormalizationKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    epsilon_ = info.attr_float("epsilon", 1e-5f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const Tensor& bias = ctx.input(2);
    if (x.rank() < 2) return invalid_argument("input must have rank 2 or more (N, C, ...), got ", x.describe());
    const int64_t channels = x.dim(1);
    for (const Tensor* p : {&scale, &bias})
      if (!p->defined() || p->dtype() != x.dtype() || p->rank() != 1 || p->dim(0) != channels)
        return invalid_argument("scale and B must have shape [", channels, "] and the input type, got ",
                                p->defined() ? p->describe() : std::string("nothing"));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), x.shape()));
    const int64_t planes = x.dim(0) * channels;
    if (planes == 0) return Status::Ok();
    const int64_t size = x.numel() / planes;
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using CT = compute_t<T>;
      const T* in = x.data<T>();
      T* out = y->data<T>();
      for (int64_t p = 0; p < planes; ++p) {
        const T* src = in + p * size;
        double sum = 0, sq = 0;
        for (int64_t i = 0; i < size; ++i) sum += double(static_cast<CT>(src[i]));
        const double mean = size > 0 ? sum / double(size) : 0;
        for (int64_t i = 0; i < size; ++i) {
          const double d = double(static_cast<CT>(src[i])) - mean;
          sq += d * d;
        }
        const double var = size > 0 ? sq / double(size) : 0;
        const int64_t c = p % channels;
        const double a = double(static_cast<CT>(scale.data<T>()[c])) / std::sqrt(var + double(epsilon_));
        const CT ca = CT(a), cb = CT(double(static_cast<CT>(bias.data<T>()[c])) - mean * a);
        for (int64_t i = 0; i < size; ++i) out[p * size + i] = static_cast<T>(static_cast<CT>(src[i]) * ca + cb);
      }
      return Status::Ok();
    });
  }

 private:
  float epsilon_ = 1e-5f;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "InstanceNormalization", 1, kLatestOpset, InstanceNormalizationKernel);

}  // namespace onyx
