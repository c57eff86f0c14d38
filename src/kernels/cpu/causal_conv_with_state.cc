// CausalConvWithState (ai.onnx, since 27): a causal depthwise 1-D convolution that carries its
// last k - 1 inputs between calls (Mamba / Gated DeltaNet decode). Per batch b and channel c,
// with p = concat(past_state[b, c] (zeros when omitted), input[b, c]) of length k - 1 + L:
//   output[b, c, t]       = act(bias[c] + sum_{j < k} weight[c, 0, j] * p[t + j])   (t < L)
//   present_state[b, c]   = the last k - 1 values of p
//   inputs:  input (B, C, L), weight (C, 1, k), bias (optional, (C)), past_state (optional,
//            (B, C, k - 1)); all one type.
//   attributes: activation ("none"; "silu" and its alias "swish": y * sigmoid(y)).
// float32, float16, bfloat16, computed in float32. (batch, channel) rows run in parallel.
#include <string>
#include <vector>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/swish_rows.h"
#include "kernels/target_clones.h"

namespace onyx {
namespace {

// y[t] = bias + sum_{j < k} w[j] * p[t + j] for t < n.
ONYX_TARGET_CLONES void causal_conv_row(const float* p, const float* w, int64_t k, float bias, float* y, int64_t n) {
  for (int64_t t = 0; t < n; ++t) y[t] = bias;
  for (int64_t j = 0; j < k; ++j) {
    const float wj = w[j];
    const float* src = p + j;
    for (int64_t t = 0; t < n; ++t) y[t] += wj * src[t];
  }
}

class CausalConvWithStateKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const std::string act = info.attr_string("activation", "none");
    if (act != "none" && act != "silu" && act != "swish")
      return invalid_argument("CausalConvWithState: activation '", act, "' is not 'none', 'silu' or 'swish'");
    silu_ = act != "none";
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    if (x.rank() != 3) return invalid_argument("CausalConvWithState: input must be (B, C, L), got ", x.describe());
    const int64_t batch = x.dim(0), channels = x.dim(1), len = x.dim(2);
    if (w.dtype() != x.dtype() || w.rank() != 3 || w.dim(0) != channels || w.dim(1) != 1 || w.dim(2) < 1)
      return invalid_argument("CausalConvWithState: weight ", w.describe(), " must be (", channels,
                              ", 1, k) with k >= 1, of input's type");
    const int64_t k = w.dim(2), carry = k - 1;
    const bool has_bias = ctx.has_input(2), has_past = ctx.has_input(3);
    if (has_bias && (ctx.input(2).dtype() != x.dtype() || ctx.input(2).shape() != Shape{channels}))
      return invalid_argument("CausalConvWithState: bias ", ctx.input(2).describe(), " must be (", channels,
                              ") of input's type");
    if (has_past && (ctx.input(3).dtype() != x.dtype() || ctx.input(3).shape() != Shape{batch, channels, carry}))
      return invalid_argument("CausalConvWithState: past_state ", ctx.input(3).describe(), " must be (", batch, ", ",
                              channels, ", ", carry, ") of input's type");
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    ONYX_ASSIGN_OR_RETURN(Tensor* present, ctx.allocate_output_uninitialized(1, x.dtype(), {batch, channels, carry}));
    if (batch * channels == 0) return Status::Ok();
    const Tensor& bias = ctx.input(2);
    const Tensor& past = ctx.input(3);

    return dispatch<float, Float16, BFloat16>(x.dtype(), [&]<typename T>() -> Status {
      const T* xp = x.data<T>();
      const T* wp = w.data<T>();
      const T* bp = has_bias ? bias.data<T>() : nullptr;
      const T* pp = has_past ? past.data<T>() : nullptr;
      T* yp = y->data<T>();
      T* sp = present->data<T>();
      const int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(1, k * len));
      parallel_for(batch * channels, grain, [&](int64_t r0, int64_t r1) {
        std::vector<float> padded(static_cast<size_t>(carry + len)), out(static_cast<size_t>(len)),
            weights(static_cast<size_t>(k));
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t c = r % channels;
          for (int64_t j = 0; j < carry; ++j) padded[size_t(j)] = pp ? float(pp[r * carry + j]) : 0.f;
          for (int64_t t = 0; t < len; ++t) padded[size_t(carry + t)] = float(xp[r * len + t]);
          for (int64_t j = 0; j < k; ++j) weights[size_t(j)] = float(wp[c * k + j]);
          causal_conv_row(padded.data(), weights.data(), k, bp ? float(bp[c]) : 0.f, out.data(), len);
          if (silu_) swish_row(out.data(), nullptr, out.data(), len, 1.f);
          for (int64_t t = 0; t < len; ++t) yp[r * len + t] = T(out[size_t(t)]);
          for (int64_t j = 0; j < carry; ++j) sp[r * carry + j] = T(padded[size_t(len + j)]);
        }
      });
      return Status::Ok();
    });
  }

 private:
  bool silu_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "CausalConvWithState", 27, kLatestOpset, CausalConvWithStateKernel);

}  // namespace onyx
