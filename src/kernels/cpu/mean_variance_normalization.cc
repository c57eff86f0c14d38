// MeanVarianceNormalization: Y = (X - mean) / (sqrt(variance) + 1e-9), with mean and population
// variance taken over `axes` (default [0, 2, 3]), as the ONNX function body defines it.
#include <cmath>
#include <vector>

#include "kernels/broadcast.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class MeanVarianceNormalizationKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axes_ = info.attr_ints("axes", {0, 2, 3});
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t rank = x.rank();
    // The statistics tensor has X's shape with the reduced dims set to 1.
    Shape stat_shape = x.shape();
    std::vector<bool> reduced(size_t(rank), false);
    for (int64_t a : axes_) {
      ONYX_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(a, rank));
      if (reduced[size_t(axis)]) return invalid_argument("axis ", a, " is repeated");
      reduced[size_t(axis)] = true;
      stat_shape[size_t(axis)] = 1;
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), x.shape()));
    const int64_t n = x.numel();
    if (n == 0) return Status::Ok();
    const int64_t groups = shape_size(stat_shape);
    const double count = double(n / groups);
    std::vector<int64_t> stat_at(static_cast<size_t>(n), 0);
    for_each_broadcast(x.shape(), {stat_shape}, [&](int64_t i, const int64_t* off) { stat_at[size_t(i)] = off[0]; });
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using CT = compute_t<T>;
      const T* in = x.data<T>();
      T* out = y->data<T>();
      std::vector<double> mean(size_t(groups), 0.0), var(size_t(groups), 0.0);
      for (int64_t i = 0; i < n; ++i) mean[size_t(stat_at[size_t(i)])] += double(static_cast<CT>(in[i]));
      for (double& m : mean) m /= count;
      for (int64_t i = 0; i < n; ++i) {
        const double d = double(static_cast<CT>(in[i])) - mean[size_t(stat_at[size_t(i)])];
        var[size_t(stat_at[size_t(i)])] += d * d;
      }
      for (int64_t i = 0; i < n; ++i) {
        const size_t g = size_t(stat_at[size_t(i)]);
        const double v = (double(static_cast<CT>(in[i])) - mean[g]) / (std::sqrt(var[g] / count) + 1e-9);
        out[i] = static_cast<T>(static_cast<CT>(v));
      }
      return Status::Ok();
    });
  }

 private:
  std::vector<int64_t> axes_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "MeanVarianceNormalization", 9, kLatestOpset, MeanVarianceNormalizationKernel);

}  // namespace onyx
