// BatchNormalization over X (N, C, D1..Dn) with per-channel scale, B, mean and var:
//   Y = (X - mean) / sqrt(var + epsilon) * scale + B.
// Inference uses the given mean / var. Training mode (training_mode = 1 from opset 14; before
// that, more than one output) uses the batch's mean and population variance and also gives
// running_mean = mean * momentum + batch_mean * (1 - momentum) (likewise running_var); opsets
// before 14 add saved_mean / saved_var, the batch mean and variance. Opsets before 9 with
// spatial = 0 take the statistics per (C, D1..Dn) element instead of per channel.
#include <cmath>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class BatchNormalizationKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    epsilon_ = info.attr_float("epsilon", 1e-5f);
    momentum_ = info.attr_float("momentum", 0.9f);
    spatial_ = info.opset() >= 9 || info.attr_int("spatial", 1) != 0;
    if (info.opset() >= 14) {
      training_ = info.attr_int("training_mode", 0) != 0;
    } else {
      training_ = false;
      for (int i = 1; i < info.num_outputs(); ++i) training_ = training_ || !info.node().outputs[size_t(i)].empty();
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) return invalid_argument("X must have rank 2 or more (N, C, ...), got ", x.describe());
    const int64_t batch = x.dim(0);
    // Statistics are per "channel": C, or C * D1 * ... * Dn when not spatial.
    const int64_t channels = spatial_ ? x.dim(1) : (batch > 0 ? x.numel() / batch : 0);
    const int64_t inner = spatial_ && channels > 0 && batch > 0 ? x.numel() / (batch * channels) : 1;
    std::vector<double> params[4];
    for (int i = 0; i < 4; ++i) {
      const Tensor& p = ctx.input(i + 1);
      if (!p.defined() || p.numel() != channels || !is_float_type(p.dtype()))
        return invalid_argument("input ", i + 1, " must hold ", channels, " floats, got ",
                                p.defined() ? p.describe() : std::string("nothing"));
      params[i].resize(size_t(channels));
      for (int64_t c = 0; c < channels; ++c) params[i][size_t(c)] = p.get_double(c);
    }
    std::vector<double>& scale = params[0];
    std::vector<double>& bias = params[1];
    std::vector<double> mean = params[2], var = params[3];
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), x.shape()));

    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using CT = compute_t<T>;
      const T* in = x.data<T>();
      if (training_) {
        const double count = double(batch * inner);
        for (int64_t c = 0; c < channels; ++c) {
          double sum = 0, sq = 0;
          for (int64_t n = 0; n < batch; ++n)
            for (int64_t i = 0; i < inner; ++i) sum += double(static_cast<CT>(in[(n * channels + c) * inner + i]));
          const double m = count > 0 ? sum / count : 0;
          for (int64_t n = 0; n < batch; ++n)
            for (int64_t i = 0; i < inner; ++i) {
              const double d = double(static_cast<CT>(in[(n * channels + c) * inner + i])) - m;
              sq += d * d;
            }
          mean[size_t(c)] = m;
          var[size_t(c)] = count > 0 ? sq / count : 0;
        }
        ONYX_RETURN_IF_ERROR(write_stats(ctx, mean, var, params[2], params[3]));
      }
      T* out = y->data<T>();
      for (int64_t c = 0; c < channels; ++c) {
        const double a = scale[size_t(c)] / std::sqrt(var[size_t(c)] + double(epsilon_));
        const CT ca = CT(a), cb = CT(bias[size_t(c)] - mean[size_t(c)] * a);
        for (int64_t n = 0; n < batch; ++n) {
          const int64_t base = (n * channels + c) * inner;
          for (int64_t i = 0; i < inner; ++i) out[base + i] = static_cast<T>(static_cast<CT>(in[base + i]) * ca + cb);
        }
      }
      return Status::Ok();
    });
  }

 private:
  // Training outputs: running mean / var (1, 2), and saved mean / var (3, 4) before opset 14,
  // each typed like the given mean / var inputs.
  Status write_stats(KernelContext& ctx, const std::vector<double>& mean, const std::vector<double>& var,
                     const std::vector<double>& in_mean, const std::vector<double>& in_var) const {
    const double mo = double(momentum_);
    for (int out = 1; out <= 4 && out < ctx.num_outputs(); ++out) {
      if (!ctx.output_requested(out)) continue;
      const Tensor& like = ctx.input(out % 2 == 1 ? 3 : 4);
      ONYX_ASSIGN_OR_RETURN(Tensor* t, ctx.allocate_output(out, like.dtype(), like.shape()));
      ONYX_RETURN_IF_ERROR(dispatch<ONYX_FLOAT_TYPES>(like.dtype(), [&]<typename U>() -> Status {
        U* p = t->data<U>();
        for (size_t c = 0; c < mean.size(); ++c) {
          double v = 0;
          if (out == 1) v = in_mean[c] * mo + mean[c] * (1 - mo);
          if (out == 2) v = in_var[c] * mo + var[c] * (1 - mo);
          if (out == 3) v = mean[c];
          if (out == 4) v = var[c];
          p[c] = static_cast<U>(static_cast<compute_t<U>>(v));
        }
        return Status::Ok();
      }));
    }
    return Status::Ok();
  }

  float epsilon_ = 1e-5f, momentum_ = 0.9f;
  bool spatial_ = true, training_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "BatchNormalization", 1, kLatestOpset, BatchNormalizationKernel);

}  // namespace onyx
