// LayerNormalization (opset 17): X is normalised over the dims [axis, rank) by their mean and
// population variance, then Y = normalised * Scale + B, with Scale and B broadcasting to
// X.shape[axis:]. The optional Mean and InvStdDev outputs are float32 with shape
// X.shape[:axis] + [1] * (rank - axis). float32 with Scale and B of the normalised block's
// size: rows in parallel, statistics as float sums in 16 lanes (two passes: mean, then the
// squared deviations). Otherwise statistics in double, stored as float.
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/broadcast.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/layer_norm_rows.h"

namespace onyx {
namespace {

class LayerNormalizationKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", -1);
    epsilon_ = info.attr_float("epsilon", 1e-5f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const bool has_bias = ctx.has_input(2);
    const Tensor& bias = ctx.input(2);
    ONYX_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, x.rank()));
    const Shape norm_shape(x.shape().begin() + axis, x.shape().end());
    auto check_param = [&](const Tensor& p, const char* name) -> Status {
      if (!p.defined() || p.dtype() != x.dtype() || p.rank() > int64_t(norm_shape.size()))
        return invalid_argument(name, " must have the type of X and broadcast to ", shape_to_string(norm_shape));
      for (size_t i = 0; i < p.shape().size(); ++i) {
        const int64_t d = p.shape()[i], want = norm_shape[norm_shape.size() - p.shape().size() + i];
        if (d != 1 && d != want)
          return invalid_argument(name, " ", p.describe(), " does not broadcast to ", shape_to_string(norm_shape));
      }
      return Status::Ok();
    };
    ONYX_RETURN_IF_ERROR(check_param(scale, "Scale"));
    if (has_bias) ONYX_RETURN_IF_ERROR(check_param(bias, "B"));

    Shape stat_shape(x.shape().begin(), x.shape().begin() + axis);
    stat_shape.resize(size_t(x.rank()), 1);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
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
    const int64_t cols = shape_size(norm_shape);
    const int64_t rows = cols > 0 ? x.numel() / cols : shape_size(Shape(x.shape().begin(), x.shape().begin() + axis));
    // Element offsets of Scale and B for each position of the normalised block.
    std::vector<int64_t> scale_at(static_cast<size_t>(cols), 0), bias_at(static_cast<size_t>(cols), 0);
    for_each_broadcast(norm_shape, {scale.shape()},
                       [&](int64_t i, const int64_t* off) { scale_at[size_t(i)] = off[0]; });
    if (has_bias)
      for_each_broadcast(norm_shape, {bias.shape()},
                         [&](int64_t i, const int64_t* off) { bias_at[size_t(i)] = off[0]; });

    if (x.dtype() == DataType::kFloat && cols > 0 && scale.numel() == cols && (!has_bias || bias.numel() == cols)) {
      // Scale and B cover the whole normalised block: rows in parallel, float lane sums.
      const float* in = x.data<float>();
      const float* gamma = scale.data<float>();
      const float* beta = has_bias ? bias.data<float>() : nullptr;
      float* out = y->data<float>();
      const double eps = epsilon_;
      parallel_for(rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(cols, 1)), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const float* src = in + r * cols;
          float avx_mean, avx_inv;
          if (layer_norm::normalize_row_avx512(src, nullptr, nullptr, nullptr, gamma, beta, eps, out + r * cols, cols,
                                               &avx_mean, &avx_inv)) {
            if (mean_out) mean_out[r] = avx_mean;
            if (inv_out) inv_out[r] = avx_inv;
            continue;
          }
          const float mean = layer_norm::sum(src, cols) / float(cols);
          const float var = layer_norm::square_deviation(src, mean, cols) / float(cols);
          const float inv = float(1.0 / std::sqrt(double(var) + eps));
          layer_norm::normalize(src, mean, inv, gamma, beta, out + r * cols, cols);
          if (mean_out) mean_out[r] = mean;
          if (inv_out) inv_out[r] = inv;
        }
      });
      return Status::Ok();
    }
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using CT = compute_t<T>;
      const T* in = x.data<T>();
      const T* sp = scale.data<T>();
      const T* bp = has_bias ? bias.data<T>() : nullptr;
      T* out = y->data<T>();
      for (int64_t r = 0; r < rows; ++r) {
        const T* src = in + r * cols;
        double sum = 0, sq = 0;
        for (int64_t i = 0; i < cols; ++i) sum += double(static_cast<CT>(src[i]));
        const double mean = cols > 0 ? sum / double(cols) : 0;
        for (int64_t i = 0; i < cols; ++i) {
          const double d = double(static_cast<CT>(src[i])) - mean;
          sq += d * d;
        }
        const double inv = 1.0 / std::sqrt((cols > 0 ? sq / double(cols) : 0) + double(epsilon_));
        if (mean_out) mean_out[r] = float(mean);
        if (inv_out) inv_out[r] = float(inv);
        for (int64_t i = 0; i < cols; ++i) {
          const double w = double(static_cast<CT>(sp[scale_at[size_t(i)]]));
          double v = (double(static_cast<CT>(src[i])) - mean) * inv * w;
          if (bp) v += double(static_cast<CT>(bp[bias_at[size_t(i)]]));
          out[r * cols + i] = static_cast<T>(static_cast<CT>(v));
        }
      }
      return Status::Ok();
    });
  }

 private:
  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "LayerNormalization", 17, kLatestOpset, LayerNormalizationKernel);

}  // namespace onyx
