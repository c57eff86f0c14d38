// com.microsoft SkipLayerNormalization (contrib op, since 1): layer normalisation over the last
// dim of S = input + skip + bias.
//   inputs:  input, skip: [..., H], usually of one shape or skip the trailing dims of input
//            (ONNX Runtime's cases); any two shapes that broadcast (numpy rules) to a shape
//            ending in H are accepted; gamma [H]; beta [H] (optional); bias [H] (optional).
//            All of one type: float32, float16 or double.
//   outputs: output = (S - mean) / sqrt(var + epsilon) * gamma + beta (S's shape);
//            mean, inv_std_var (optional, float32, S.shape[:-1] + [1]);
//            input_skip_bias_sum (optional) = S.
//   attribute epsilon (default 1e-12).
// One pass over memory per row: S is formed once (into the sum output, or into the output),
// its statistics are taken from cache, then it is normalised in place. Statistics are float
// sums over 16 lanes (double for double input). Rows run through parallel_for.
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/expand_to.h"
#include "kernels/half_convert.h"
#include "kernels/kernel.h"
#include "kernels/layer_norm_rows.h"
#include "kernels/target_clones.h"

namespace onyx {
namespace {

constexpr int kLanes = 16;

// out = x + skip (+ bias); returns the sum of out.
ONYX_TARGET_CLONES float add_row(const float* x, const float* skip, const float* bias, float* out, int64_t n) {
  float acc[kLanes] = {};
  int64_t i = 0;
  if (bias) {
    for (; i + kLanes <= n; i += kLanes)
      for (int k = 0; k < kLanes; ++k) {
        const float v = x[i + k] + skip[i + k] + bias[i + k];
        out[i + k] = v;
        acc[k] += v;
      }
  } else {
    for (; i + kLanes <= n; i += kLanes)
      for (int k = 0; k < kLanes; ++k) {
        const float v = x[i + k] + skip[i + k];
        out[i + k] = v;
        acc[k] += v;
      }
  }
  float total = 0;
  for (; i < n; ++i) {
    out[i] = x[i] + skip[i] + (bias ? bias[i] : 0.f);
    total += out[i];
  }
  for (float a : acc) total += a;
  return total;
}

class SkipLayerNormalizationKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    epsilon_ = info.attr_float("epsilon", 1e-12f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& gamma = ctx.input(2);
    const Tensor* beta = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    const Tensor* bias = ctx.has_input(4) ? &ctx.input(4) : nullptr;
    Tensor x = ctx.input(0);
    Tensor skip = ctx.input(1);
    if (!x.defined() || !skip.defined() || skip.dtype() != x.dtype())
      return invalid_argument("input and skip must be tensors of one type, got ", x.describe(), " and ", skip.describe());
    if (!gamma.defined() || gamma.rank() != 1) return invalid_argument("gamma must be 1-D, got ", gamma.describe());
    const int64_t hidden = gamma.numel();
    auto shape = broadcast_shapes({x.shape(), skip.shape(), bias ? Shape{hidden} : Shape{}});
    if (!shape.ok() || shape->empty() || shape->back() != hidden)
      return invalid_argument("input ", x.describe(), ", skip ", skip.describe(),
                              bias ? " and bias " + bias->describe() : std::string(),
                              " must broadcast to a shape whose last dim is gamma's length ", hidden);
    const Shape& out_shape = *shape;
    // The fast path reads `x` at the output shape and `skip` as its trailing dims.
    if (x.shape() != out_shape && skip.shape() == out_shape && skip_fits(out_shape, x.shape())) std::swap(x, skip);
    if (x.shape() != out_shape) {
      ONYX_ASSIGN_OR_RETURN(x, expand_to(x, out_shape));
    }
    if (!skip_fits(out_shape, skip.shape())) {
      ONYX_ASSIGN_OR_RETURN(skip, expand_to(skip, out_shape));
    }
    auto check_vector = [&](const Tensor* t, const char* name) -> Status {
      if (t && (!t->defined() || t->dtype() != x.dtype() || t->rank() != 1 || t->numel() != hidden))
        return invalid_argument(name, " ", t->describe(), " must be 1-D of the input's type with ", hidden, " elements");
      return Status::Ok();
    };
    ONYX_RETURN_IF_ERROR(check_vector(&gamma, "gamma"));
    ONYX_RETURN_IF_ERROR(check_vector(beta, "beta"));
    ONYX_RETURN_IF_ERROR(check_vector(bias, "bias"));

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
    if (x.numel() == 0 || hidden == 0) return Status::Ok();
    const int64_t rows = x.numel() / hidden;
    const int64_t skip_rows = skip.numel() / hidden;
    const int64_t grain = std::max<int64_t>(1, 8192 / hidden);
    const double eps = epsilon_;

    return dispatch<float, Float16, double>(x.dtype(), [&]<typename T>() -> Status {
      const T* xp = x.data<T>();
      const T* sp = skip.data<T>();
      const T* gp = gamma.data<T>();
      const T* bp = beta ? beta->data<T>() : nullptr;
      const T* biasp = bias ? bias->data<T>() : nullptr;
      T* yp = y->data<T>();
      T* sump = sum ? sum->data<T>() : nullptr;
      auto stats = [&](int64_t r, double mean, double inv) {
        if (mean_out) mean_out[r] = float(mean);
        if (inv_out) inv_out[r] = float(inv);
      };
      if constexpr (std::is_same_v<T, float>) {
        parallel_for(rows, grain, [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            float avx_mean, avx_inv;
            if (layer_norm::normalize_row_avx512(xp + r * hidden, sp + (r % skip_rows) * hidden, biasp,
                                                 sump ? sump + r * hidden : nullptr, gp, bp, eps, yp + r * hidden,
                                                 hidden, &avx_mean, &avx_inv)) {
              stats(r, avx_mean, avx_inv);
              continue;
            }
            float* s = sump ? sump + r * hidden : yp + r * hidden;
            const float mean = add_row(xp + r * hidden, sp + (r % skip_rows) * hidden, biasp, s, hidden) / float(hidden);
            const float var = layer_norm::square_deviation(s, mean, hidden) / float(hidden);
            const float inv = float(1.0 / std::sqrt(double(var) + eps));
            layer_norm::normalize(s, mean, inv, gp, bp, yp + r * hidden, hidden);
            stats(r, mean, inv);
          }
        });
      } else if constexpr (std::is_same_v<T, Float16>) {
        parallel_for(rows, grain, [&](int64_t r0, int64_t r1) {
          const size_t h = size_t(hidden);
          std::vector<float> xf(h), sf(h), v(h), g(h), b(bp ? h : 0), bi(biasp ? h : 0);
          auto widen = [](const T* from, float* to, int64_t count) {
            half_to_float(reinterpret_cast<const uint16_t*>(from), to, count);
          };
          auto narrow = [](const float* from, T* to, int64_t count) {
            float_to_half(from, reinterpret_cast<uint16_t*>(to), count);
          };
          widen(gp, g.data(), hidden);
          if (bp) widen(bp, b.data(), hidden);
          if (biasp) widen(biasp, bi.data(), hidden);
          for (int64_t r = r0; r < r1; ++r) {
            widen(xp + r * hidden, xf.data(), hidden);
            widen(sp + (r % skip_rows) * hidden, sf.data(), hidden);
            const float mean = add_row(xf.data(), sf.data(), biasp ? bi.data() : nullptr, v.data(), hidden) / float(hidden);
            if (sump) narrow(v.data(), sump + r * hidden, hidden);
            const float var = layer_norm::square_deviation(v.data(), mean, hidden) / float(hidden);
            const float inv = float(1.0 / std::sqrt(double(var) + eps));
            layer_norm::normalize(v.data(), mean, inv, g.data(), bp ? b.data() : nullptr, v.data(), hidden);
            narrow(v.data(), yp + r * hidden, hidden);
            stats(r, mean, inv);
          }
        });
      } else {
        parallel_for(rows, grain, [&](int64_t r0, int64_t r1) {
          std::vector<double> v(static_cast<size_t>(hidden));
          for (int64_t r = r0; r < r1; ++r) {
            const T* xr = xp + r * hidden;
            const T* sr = sp + (r % skip_rows) * hidden;
            double total = 0, sq = 0;
            for (int64_t j = 0; j < hidden; ++j) {
              v[size_t(j)] = double(xr[j]) + double(sr[j]) + (biasp ? double(biasp[j]) : 0.0);
              total += v[size_t(j)];
            }
            const double mean = total / double(hidden);
            for (int64_t j = 0; j < hidden; ++j) sq += (v[size_t(j)] - mean) * (v[size_t(j)] - mean);
            const double inv = 1.0 / std::sqrt(sq / double(hidden) + eps);
            for (int64_t j = 0; j < hidden; ++j) {
              if (sump) sump[r * hidden + j] = T(v[size_t(j)]);
              yp[r * hidden + j] = T((v[size_t(j)] - mean) * inv * double(gp[j]) + (bp ? double(bp[j]) : 0.0));
            }
            stats(r, mean, inv);
          }
        });
      }
      return Status::Ok();
    });
  }

 private:
  // True when `skip` equals the trailing dims of `x` once its leading 1s are dropped.
  static bool skip_fits(const Shape& x, const Shape& skip) {
    size_t lead = 0;
    while (lead < skip.size() && skip[lead] == 1 && skip.size() - lead > 1) ++lead;
    const size_t k = skip.size() - lead;
    if (k == 0 || k > x.size()) return false;
    for (size_t i = 0; i < k; ++i)
      if (skip[lead + i] != x[x.size() - k + i]) return false;
    return true;
  }

  float epsilon_ = 1e-12f;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "SkipLayerNormalization", 1, kLatestOpset, SkipLayerNormalizationKernel);

}  // namespace onyx
