// BatchNormalizationGrad (ai.onyx.training, opset 1): the gradient of BatchNormalization in
// training mode (the batch's statistics), for the gradient builder's rule, in one kernel
// instead of a dozen elementwise ops and reductions over the activations.
//   inputs     dY, X (N, C, D1..Dn; rank 2 or more, one shape), scale (C)
//   attribute  epsilon (default 1e-5), as the forward node had it
//   outputs    dX (X's shape), dScale (C), dB (C), each optional:
//     mean, var = X's per-channel mean and population variance over N and D1..Dn (count
//     elements); inv_std = 1 / sqrt(var + epsilon); xhat = (X - mean) * inv_std;
//     dB = sum dY; dScale = sum dY * xhat;
//     dX = scale * inv_std * (dY - dB / count - xhat * dScale / count).
// float32 or float64, all inputs of one type; channels in parallel. Sums are float64 per
// channel, of float32 partial sums per plane (D1..Dn) for float32, the centred ones about the
// channel's mean.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/target_clones.h"

namespace onyx {
namespace {

constexpr int kLanes = 16;

// Sums of one plane: (x - shift), (x - shift)^2, dy, dy * (x - shift), accumulated in T in
// kLanes lanes (so that the compiler vectorises them), returned in double.
template <typename T>
inline void plane_sums_impl(const T* x, const T* dy, int64_t n, T shift, double* sx, double* sxx, double* sdy,
                            double* sdyx) {
  T ax[kLanes] = {}, axx[kLanes] = {}, ady[kLanes] = {}, adyx[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const T d = x[i + j] - shift, g = dy[i + j];
      ax[j] += d;
      axx[j] += d * d;
      ady[j] += g;
      adyx[j] += g * d;
    }
  }
  for (int j = 0; i < n; ++i, ++j) {
    const T d = x[i] - shift, g = dy[i];
    ax[j] += d;
    axx[j] += d * d;
    ady[j] += g;
    adyx[j] += g * d;
  }
  for (int j = 0; j < kLanes; ++j) {
    *sx += double(ax[j]);
    *sxx += double(axx[j]);
    *sdy += double(ady[j]);
    *sdyx += double(adyx[j]);
  }
}

// The sum of one plane, in kLanes lanes of T, returned in double.
template <typename T>
inline double plane_sum_impl(const T* x, int64_t n) {
  T acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) acc[j] += x[i + j];
  for (int j = 0; i < n; ++i, ++j) acc[j] += x[i];
  double s = 0;
  for (int j = 0; j < kLanes; ++j) s += double(acc[j]);
  return s;
}

// dx = k_dy * dy - k_x * (x - mean) + k0 over one plane.
template <typename T>
inline void plane_apply_impl(const T* x, const T* dy, T* dx, int64_t n, T mean, T k_dy, T k_x, T k0) {
  for (int64_t i = 0; i < n; ++i) dx[i] = k_dy * dy[i] - k_x * (x[i] - mean) + k0;
}

ONYX_TARGET_CLONES void plane_sums(const float* x, const float* dy, int64_t n, float shift, double* sx, double* sxx,
                                   double* sdy, double* sdyx) {
  plane_sums_impl(x, dy, n, shift, sx, sxx, sdy, sdyx);
}
ONYX_TARGET_CLONES void plane_sums(const double* x, const double* dy, int64_t n, double shift, double* sx,
                                   double* sxx, double* sdy, double* sdyx) {
  plane_sums_impl(x, dy, n, shift, sx, sxx, sdy, sdyx);
}
ONYX_TARGET_CLONES double plane_sum(const float* x, int64_t n) { return plane_sum_impl(x, n); }
ONYX_TARGET_CLONES double plane_sum(const double* x, int64_t n) { return plane_sum_impl(x, n); }
ONYX_TARGET_CLONES void plane_apply(const float* x, const float* dy, float* dx, int64_t n, float mean, float k_dy,
                                    float k_x, float k0) {
  plane_apply_impl(x, dy, dx, n, mean, k_dy, k_x, k0);
}
ONYX_TARGET_CLONES void plane_apply(const double* x, const double* dy, double* dx, int64_t n, double mean,
                                    double k_dy, double k_x, double k0) {
  plane_apply_impl(x, dy, dx, n, mean, k_dy, k_x, k0);
}

class BatchNormalizationGradKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    epsilon_ = info.attr_float("epsilon", 1e-5f);
    if (!(epsilon_ >= 0.0f)) return invalid_model("BatchNormalizationGrad: epsilon must be >= 0, got ", epsilon_);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& dy = ctx.input(0);
    const Tensor& x = ctx.input(1);
    const Tensor& scale = ctx.input(2);
    if (x.rank() < 2 || dy.shape() != x.shape())
      return invalid_argument("BatchNormalizationGrad: dY ", dy.describe(), " and X ", x.describe(),
                              " must have one shape of rank 2 or more");
    const int64_t batch = x.dim(0), channels = x.dim(1);
    if (scale.rank() != 1 || scale.dim(0) != channels)
      return invalid_argument("BatchNormalizationGrad: scale ", scale.describe(), " must have shape [", channels, "]");
    if (dy.dtype() != x.dtype() || scale.dtype() != x.dtype())
      return invalid_argument("BatchNormalizationGrad: dY, X and scale must share one type, got ", dy.describe(), ", ",
                              x.describe(), ", ", scale.describe());
    const int64_t inner = batch * channels > 0 ? x.numel() / (batch * channels) : 0;
    const double count = double(batch * inner);
    return dispatch<float, double>(x.dtype(), [&]<typename T>() -> Status {
      T* dx = nullptr;
      T *dscale = nullptr, *dbias = nullptr;
      if (ctx.output_requested(0)) {
        ONYX_ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
        dx = t->data<T>();
      }
      if (ctx.output_requested(1)) {
        ONYX_ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output_uninitialized(1, x.dtype(), {channels}));
        dscale = t->data<T>();
      }
      if (ctx.output_requested(2)) {
        ONYX_ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output_uninitialized(2, x.dtype(), {channels}));
        dbias = t->data<T>();
      }
      const T* xp = x.data<T>();
      const T* dyp = dy.data<T>();
      const T* sp = scale.data<T>();
      const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 14) / std::max<int64_t>(1, batch * inner));
      parallel_for(channels, grain, [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c) {
          // Two passes: the mean, then sums about it (the channel's planes stay in cache).
          double total = 0;
          for (int64_t n = 0; n < batch; ++n) total += plane_sum(xp + (n * channels + c) * inner, inner);
          const T shift = count > 0 ? T(total / count) : T(0);
          double sx = 0, sxx = 0, sdy = 0, sdyx = 0;
          for (int64_t n = 0; n < batch; ++n) {
            const int64_t base = (n * channels + c) * inner;
            plane_sums(xp + base, dyp + base, inner, shift, &sx, &sxx, &sdy, &sdyx);
          }
          const double mean_d = count > 0 ? sx / count : 0.0;  // mean - shift
          const double var = count > 0 ? std::max(0.0, sxx / count - mean_d * mean_d) : 0.0;
          const double inv_std = 1.0 / std::sqrt(var + double(epsilon_));
          const double sum_dy_xc = sdyx - mean_d * sdy;  // sum dy * (x - mean)
          if (dbias) dbias[c] = T(sdy);
          if (dscale) dscale[c] = T(sum_dy_xc * inv_std);
          if (!dx || count == 0) continue;
          // dX = gain * (dy - sdy / count - (x - mean) * inv_std^2 * sum_dy_xc / count), with
          // x - mean = (x - shift) - mean_d
          const double gain = double(sp[c]) * inv_std;
          const double k_x = gain * inv_std * inv_std * sum_dy_xc / count;
          const double k0 = -gain * sdy / count + k_x * mean_d;
          for (int64_t n = 0; n < batch; ++n) {
            const int64_t base = (n * channels + c) * inner;
            plane_apply(xp + base, dyp + base, dx + base, inner, shift, T(gain), T(k_x), T(k0));
          }
        }
      });
      return Status::Ok();
    });
  }

 private:
  float epsilon_ = 1e-5f;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "BatchNormalizationGrad", 1, kLatestOpset, BatchNormalizationGradKernel);

}  // namespace onyx
