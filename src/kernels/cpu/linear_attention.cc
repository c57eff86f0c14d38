// LinearAttention (ai.onnx, since 27): the recurrent (linear-attention) update of a state
// S (d_k x d_v) per batch and KV head, token by token:
//   linear:      S = S + k v^T
//   gated:       S = exp(g) * S + k v^T
//   delta:       S = S + k (beta * (v - S^T k))^T
//   gated_delta: S = exp(g) * S, then the delta update on that S
// and for each query head h (sharing KV head h / (q_num_heads / kv_num_heads)):
//   o = scale * S^T q.
//   inputs:  query (B, T, H_q * d_k), key (B, T, H_kv * d_k), value (B, T, H_kv * d_v);
//            past_state (optional, (B, H_kv, d_k, d_v); zeros when omitted); decay
//            (log-space, (B, T, H_kv) per head or (B, T, H_kv * d_k) per key dim: required
//            by the gated rules, refused by the others); beta ((B, T, H_kv) or (B, T, 1):
//            required by the delta rules, refused by the others).
//   outputs: output (B, T, H_q * d_v), query's type; present_state (B, H_kv, d_k, d_v),
//            past_state's type (query's when past_state is omitted).
//   attributes: q_num_heads, kv_num_heads (both required, H_q a multiple of H_kv), scale
//            (0: 1 / sqrt(d_k)), update_rule ("gated_delta"), chunk_size (a tuning hint:
//            ignored, the recurrence is run token by token).
// float32, float16, bfloat16 activations and states; the state is kept and every product
// computed in float32. (batch, KV head) pairs run in parallel.
#include <cmath>
#include <string>
#include <vector>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/target_clones.h"

namespace onyx {
namespace {

// s[i] = s[i] * f + a * u[i]
ONYX_TARGET_CLONES void scale_add_row(float* s, float f, float a, const float* u, int64_t n) {
  for (int64_t i = 0; i < n; ++i) s[i] = s[i] * f + a * u[i];
}

// out[m] += a * row[m]
ONYX_TARGET_CLONES void axpy_row(float* out, float a, const float* row, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] += a * row[i];
}

struct Dims {
  int64_t batch = 0, tokens = 0, q_heads = 0, kv_heads = 0, dk = 0, dv = 0;
  int64_t decay_width = 0;  // 0 none, 1 per head, dk per key dim
  int64_t beta_heads = 0;   // 0 none, 1 shared by every head, kv_heads
};

class LinearAttentionKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    q_heads_ = info.attr_int("q_num_heads", 0);
    kv_heads_ = info.attr_int("kv_num_heads", 0);
    scale_ = info.attr_float("scale", 0.f);
    const std::string rule = info.attr_string("update_rule", "gated_delta");
    if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta")
      return invalid_argument("LinearAttention: update_rule '", rule,
                              "' is not one of 'linear', 'gated', 'delta', 'gated_delta'");
    gated_ = rule == "gated" || rule == "gated_delta";
    delta_ = rule == "delta" || rule == "gated_delta";
    if (q_heads_ <= 0 || kv_heads_ <= 0 || q_heads_ % kv_heads_ != 0)
      return invalid_argument("LinearAttention: q_num_heads (", q_heads_, ") must be a positive multiple of kv_num_heads (",
                              kv_heads_, ")");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    ONYX_ASSIGN_OR_RETURN(Dims d, check_inputs(ctx));
    const bool has_past = ctx.has_input(3);
    const DataType state_type = has_past ? ctx.input(3).dtype() : q.dtype();
    ONYX_ASSIGN_OR_RETURN(Tensor* out, ctx.allocate_output_uninitialized(0, q.dtype(), {d.batch, d.tokens, d.q_heads * d.dv}));
    ONYX_ASSIGN_OR_RETURN(Tensor* present,
                          ctx.allocate_output_uninitialized(1, state_type, {d.batch, d.kv_heads, d.dk, d.dv}));
    const float scale = scale_ != 0.f ? scale_ : float(1.0 / std::sqrt(double(d.dk)));
    const Tensor& past = ctx.input(3);
    const Tensor& decay = ctx.input(4);
    const Tensor& beta = ctx.input(5);
    const int64_t group = d.q_heads / d.kv_heads;
    const int64_t state_size = d.dk * d.dv;

    return dispatch<float, Float16, BFloat16>(q.dtype(), [&]<typename T>() -> Status {
      return dispatch<float, Float16, BFloat16>(state_type, [&]<typename S>() -> Status {
        const T* qp = q.data<T>();
        const T* kp = k.data<T>();
        const T* vp = v.data<T>();
        const T* gp = d.decay_width ? decay.data<T>() : nullptr;
        const T* bp = d.beta_heads ? beta.data<T>() : nullptr;
        const S* pp = has_past ? past.data<S>() : nullptr;
        T* op = out->data<T>();
        S* sp = present->data<S>();
        parallel_for(d.batch * d.kv_heads, 1, [&](int64_t p0, int64_t p1) {
          std::vector<float> state(static_cast<size_t>(state_size)), kt(static_cast<size_t>(d.dk)), ut(static_cast<size_t>(d.dv)),
              ot(static_cast<size_t>(d.dv)), decay_f(static_cast<size_t>(d.dk));
          for (int64_t pair = p0; pair < p1; ++pair) {
            const int64_t b = pair / d.kv_heads, h = pair % d.kv_heads;
            for (int64_t i = 0; i < state_size; ++i) state[size_t(i)] = pp ? float(pp[pair * state_size + i]) : 0.f;
            for (int64_t t = 0; t < d.tokens; ++t) {
              const int64_t bt = b * d.tokens + t;
              const T* kr = kp + (bt * d.kv_heads + h) * d.dk;
              const T* vr = vp + (bt * d.kv_heads + h) * d.dv;
              for (int64_t i = 0; i < d.dk; ++i) kt[size_t(i)] = float(kr[i]);
              for (int64_t m = 0; m < d.dv; ++m) ut[size_t(m)] = float(vr[m]);
              // The decay factor of each state row (1 when not gated).
              for (int64_t i = 0; i < d.dk; ++i) {
                if (!gp) {
                  decay_f[size_t(i)] = 1.f;
                } else {
                  const int64_t g = d.decay_width == 1 ? bt * d.kv_heads + h : (bt * d.kv_heads + h) * d.dk + i;
                  decay_f[size_t(i)] = std::exp(float(gp[g]));
                }
              }
              if (delta_) {
                // u = beta * (v - (exp(g) S)^T k)
                std::fill(ot.begin(), ot.end(), 0.f);
                for (int64_t i = 0; i < d.dk; ++i)
                  axpy_row(ot.data(), kt[size_t(i)] * decay_f[size_t(i)], state.data() + i * d.dv, d.dv);
                const float bv = float(bp[bt * d.beta_heads + (d.beta_heads == 1 ? 0 : h)]);
                for (int64_t m = 0; m < d.dv; ++m) ut[size_t(m)] = bv * (ut[size_t(m)] - ot[size_t(m)]);
              }
              for (int64_t i = 0; i < d.dk; ++i)
                scale_add_row(state.data() + i * d.dv, decay_f[size_t(i)], kt[size_t(i)], ut.data(), d.dv);
              for (int64_t g = 0; g < group; ++g) {
                const int64_t qh = h * group + g;
                const T* qr = qp + (bt * d.q_heads + qh) * d.dk;
                std::fill(ot.begin(), ot.end(), 0.f);
                for (int64_t i = 0; i < d.dk; ++i) axpy_row(ot.data(), float(qr[i]), state.data() + i * d.dv, d.dv);
                T* orow = op + (bt * d.q_heads + qh) * d.dv;
                for (int64_t m = 0; m < d.dv; ++m) orow[m] = T(scale * ot[size_t(m)]);
              }
            }
            for (int64_t i = 0; i < state_size; ++i) sp[pair * state_size + i] = S(state[size_t(i)]);
          }
        });
        return Status::Ok();
      });
    });
  }

 private:
  Result<Dims> check_inputs(const KernelContext& ctx) const {
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    if (q.rank() != 3 || k.rank() != 3 || v.rank() != 3)
      return invalid_argument("LinearAttention: query, key and value must be 3-D (B, T, H * D), got ", q.describe(), ", ",
                              k.describe(), " and ", v.describe());
    if (k.dtype() != q.dtype() || v.dtype() != q.dtype())
      return invalid_argument("LinearAttention: query, key and value must have one type, got ", q.describe(), ", ",
                              k.describe(), " and ", v.describe());
    Dims d;
    d.batch = q.dim(0);
    d.tokens = q.dim(1);
    d.q_heads = q_heads_;
    d.kv_heads = kv_heads_;
    if (k.dim(0) != d.batch || v.dim(0) != d.batch || k.dim(1) != d.tokens || v.dim(1) != d.tokens)
      return invalid_argument("LinearAttention: query, key and value disagree on (B, T): ", q.describe(), ", ",
                              k.describe(), " and ", v.describe());
    if (q.dim(2) % q_heads_ != 0 || v.dim(2) % kv_heads_ != 0)
      return invalid_argument("LinearAttention: query ", q.describe(), " and value ", v.describe(),
                              " are not whole numbers of q_num_heads ", q_heads_, " and kv_num_heads ", kv_heads_);
    d.dk = q.dim(2) / q_heads_;
    d.dv = v.dim(2) / kv_heads_;
    if (k.dim(2) != kv_heads_ * d.dk)
      return invalid_argument("LinearAttention: key ", k.describe(), " must be (B, T, kv_num_heads * d_k) with d_k ",
                              d.dk, " from query");
    if (ctx.has_input(3)) {
      const Tensor& past = ctx.input(3);
      if (past.shape() != Shape{d.batch, d.kv_heads, d.dk, d.dv})
        return invalid_argument("LinearAttention: past_state ", past.describe(), " must be (", d.batch, ", ", d.kv_heads,
                                ", ", d.dk, ", ", d.dv, ")");
    }
    const bool has_decay = ctx.has_input(4), has_beta = ctx.has_input(5);
    if (has_decay != gated_)
      return invalid_argument("LinearAttention: decay is ", gated_ ? "required by" : "not taken by", " the update rule");
    if (has_beta != delta_)
      return invalid_argument("LinearAttention: beta is ", delta_ ? "required by" : "not taken by", " the update rule");
    if (has_decay) {
      const Tensor& g = ctx.input(4);
      const bool per_head = g.shape() == Shape{d.batch, d.tokens, d.kv_heads};
      const bool per_dim = g.shape() == Shape{d.batch, d.tokens, d.kv_heads * d.dk};
      if (g.dtype() != q.dtype() || (!per_head && !per_dim))
        return invalid_argument("LinearAttention: decay ", g.describe(), " must be (", d.batch, ", ", d.tokens, ", ",
                                d.kv_heads, ") or (", d.batch, ", ", d.tokens, ", ", d.kv_heads * d.dk,
                                ") of query's type");
      d.decay_width = per_head ? 1 : d.dk;
    }
    if (has_beta) {
      const Tensor& b = ctx.input(5);
      const bool ok = b.rank() == 3 && b.dim(0) == d.batch && b.dim(1) == d.tokens &&
                      (b.dim(2) == d.kv_heads || b.dim(2) == 1);
      if (b.dtype() != q.dtype() || !ok)
        return invalid_argument("LinearAttention: beta ", b.describe(), " must be (", d.batch, ", ", d.tokens, ", ",
                                d.kv_heads, ") or (", d.batch, ", ", d.tokens, ", 1) of query's type");
      d.beta_heads = b.dim(2);
    }
    return d;
  }

  int64_t q_heads_ = 0, kv_heads_ = 0;
  float scale_ = 0.f;
  bool gated_ = true, delta_ = true;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "LinearAttention", 27, kLatestOpset, LinearAttentionKernel);

}  // namespace onyx
