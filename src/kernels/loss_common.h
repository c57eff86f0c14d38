// Shared by NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: shape checks, attribute
// parsing and the (weighted, ignore_index-aware) negative log likelihood reduction.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {

enum class LossReduction { kNone, kSum, kMean };

// The attributes common to both losses.
struct LossAttrs {
  LossReduction reduction = LossReduction::kMean;
  std::optional<int64_t> ignore_index;
};
// Parses `reduction` (none / sum / mean) and the optional `ignore_index`.
Result<LossAttrs> parse_loss_attrs(const KernelInfo& info);

// The input viewed as (N, C, D) where D is the product of d1..dk (1 when k = 0).
struct LossDims {
  int64_t n = 0, c = 0, d = 0;
};
// Checks input (N, C, d1..dk), target (N, d1..dk) of int32/int64 and, when defined, weight (C)
// of the input's dtype.
Result<LossDims> loss_dims(const Tensor& input, const Tensor& target, const Tensor& weight);

// Fills `out` (dtype T; target's shape for kNone, a scalar otherwise) with the negative log
// likelihood loss, where logp(i) is the log-probability at flat index i of the (N, C, D) input.
// loss[n, d] = -logp[n, t, d] * weight[t] with t = target[n, d]; 0 where t == ignore_index.
// kMean divides the sum by the sum of the applied weights (the count when unweighted).
// A target outside [0, C) that is not ignore_index is INVALID_ARGUMENT.
template <typename T, typename LogP>
Status negative_log_likelihood(const LossDims& dims, LogP&& logp, const Tensor& target, const Tensor& weight,
                               const LossAttrs& attrs, Tensor& out) {
  const std::vector<int64_t> t = target.to_int64_vector();
  const T* w = weight.defined() ? weight.data<T>() : nullptr;
  T* o = out.data<T>();
  double sum = 0, wsum = 0;
  for (int64_t n = 0; n < dims.n; ++n) {
    for (int64_t d = 0; d < dims.d; ++d) {
      const int64_t i = n * dims.d + d;
      const int64_t c = t[size_t(i)];
      double loss = 0;
      if (!(attrs.ignore_index && c == *attrs.ignore_index)) {
        if (c < 0 || c >= dims.c)
          return invalid_argument("target value ", c, " at index ", i, " is outside [0, ", dims.c, ")");
        const double wc = w ? double(compute_t<T>(w[c])) : 1.0;
        loss = -logp((n * dims.c + c) * dims.d + d) * wc;
        wsum += wc;
      }
      if (attrs.reduction == LossReduction::kNone) o[i] = static_cast<T>(static_cast<compute_t<T>>(loss));
      sum += loss;
    }
  }
  if (attrs.reduction == LossReduction::kSum) o[0] = static_cast<T>(static_cast<compute_t<T>>(sum));
  if (attrs.reduction == LossReduction::kMean) o[0] = static_cast<T>(static_cast<compute_t<T>>(sum / wsum));
  return Status::Ok();
}

// The output shape for a reduction: the target's shape for kNone, a scalar otherwise.
inline Shape loss_output_shape(const Tensor& target, LossReduction r) {
  return r == LossReduction::kNone ? target.shape() : Shape{};
}

}  // namespace onyx
