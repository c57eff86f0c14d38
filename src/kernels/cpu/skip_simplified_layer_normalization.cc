// com.microsoft SkipSimplifiedLayerNormalization (contrib op, since 1): RMS normalisation over
// the last dim of S = input + skip + bias,
//   output = S / sqrt(mean(S^2) + epsilon) * gamma
// (no mean subtracted, no beta).
//   inputs:  input [..., H]; skip of input's shape, or any shape that broadcasts to it (as for
//            SkipLayerNormalization, e.g. [S, H] against [B, S, H]); gamma [H]; bias [H]
//            (optional). All of one type: float32, float16 or bfloat16 (computed in float).
//   outputs: output (input's shape); mean and inv_std_var (optional, float32,
//            input.shape[:-1] + [1]): the published docs leave them undefined ("for
//            training"); here mean is the row's mean of S and inv_std_var the factor
//            1 / sqrt(mean(S^2) + epsilon); input_skip_bias_sum (optional) = S.
//   attribute epsilon (default 1e-12).
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/expand_to.h"
#include "kernels/kernel.h"
#include "kernels/rms_norm.h"

namespace onyx {
namespace {

class SkipSimplifiedLayerNormalizationKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    epsilon_ = info.attr_float("epsilon", 1e-12f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor skip = ctx.input(1);
    const Tensor& gamma = ctx.input(2);
    const Tensor* bias = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    if (!x.defined() || x.rank() < 1 || !skip.defined() || skip.dtype() != x.dtype())
      return invalid_argument("input and skip must be tensors of one type with rank >= 1, got ", x.describe(), " and ",
                              skip.describe());
    const int64_t hidden = x.shape().back();
    auto check_vector = [&](const Tensor* t, const char* name) -> Status {
      if (t && (!t->defined() || t->dtype() != x.dtype() || t->rank() != 1 || t->numel() != hidden))
        return invalid_argument(name, " ", t->describe(), " must be 1-D of the input's type with ", hidden, " elements");
      return Status::Ok();
    };
    ONYX_RETURN_IF_ERROR(check_vector(&gamma, "gamma"));
    ONYX_RETURN_IF_ERROR(check_vector(bias, "bias"));
    if (skip.shape() != x.shape()) {
      auto expanded = expand_to(skip, x.shape());
      if (!expanded.ok())
        return invalid_argument("skip ", skip.describe(), " does not broadcast to the input's shape ", x.describe());
      skip = std::move(expanded).value();
    }

    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    Shape stat_shape = x.shape();
    stat_shape.back() = 1;
    float* mean_out = nullptr;
    float* inv_out = nullptr;
    if (ctx.output_requested(1)) {
      ONYX_ASSIGN_OR_RETURN(Tensor* t, ctx.allocate_output(1, DataType::kFloat, stat_shape));
      mean_out = t->data<float>();
    }
    if (ctx.output_requested(2)) {
      ONYX_ASSIGN_OR_RETURN(Tensor* t, ctx.allocate_output(2, DataType::kFloat, stat_shape));
      inv_out = t->data<float>();
    }
    Tensor* sum = nullptr;
    if (ctx.output_requested(3)) {
      ONYX_ASSIGN_OR_RETURN(sum, ctx.allocate_output_uninitialized(3, x.dtype(), x.shape()));
    }
    if (x.numel() == 0) return Status::Ok();
    const int64_t rows = x.numel() / hidden;
    const double eps = epsilon_;

    return dispatch<float, Float16, BFloat16>(x.dtype(), [&]<typename T>() -> Status {
      const T* xp = x.data<T>();
      const T* sp = skip.data<T>();
      T* yp = y->data<T>();
      T* sump = sum ? sum->data<T>() : nullptr;
      const size_t h = size_t(hidden);
      std::vector<float> g(h), b(bias ? h : 0);
      for (size_t j = 0; j < h; ++j) {
        g[j] = float(gamma.data<T>()[j]);
        if (bias) b[j] = float(bias->data<T>()[j]);
      }
      parallel_for(rows, std::max<int64_t>(1, 8192 / hidden), [&](int64_t r0, int64_t r1) {
        std::vector<float> v(h);
        for (int64_t r = r0; r < r1; ++r) {
          const size_t o = size_t(r) * h;
          double total = 0;
          for (size_t j = 0; j < h; ++j) {
            v[j] = float(xp[o + j]) + float(sp[o + j]) + (bias ? b[j] : 0.f);
            if (sump) sump[o + j] = T(v[j]);
          }
          if (mean_out) {
            for (size_t j = 0; j < h; ++j) total += v[j];
            mean_out[r] = float(total / double(hidden));
          }
          const double inv = 1.0 / std::sqrt(double(sum_of_squares(v.data(), hidden)) / double(hidden) + eps);
          if (inv_out) inv_out[r] = float(inv);
          if constexpr (std::is_same_v<T, float>) {
            scale_row(v.data(), float(inv), g.data(), yp + o, hidden);
          } else {
            scale_row(v.data(), float(inv), g.data(), v.data(), hidden);
            for (size_t j = 0; j < h; ++j) yp[o + j] = T(v[j]);
          }
        }
      });
      return Status::Ok();
    });
  }

 private:
  float epsilon_ = 1e-12f;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "SkipSimplifiedLayerNormalization", 1, kLatestOpset,
                     SkipSimplifiedLayerNormalizationKernel);

}  // namespace onyx
