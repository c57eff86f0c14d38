// FlexAttention (ai.onnx.preview, since 1): scaled dot-product attention with two optional
// modifier subgraphs,
//   scores = scale * Q K^T                 (B, Hq, L, S)
//   scores = score_mod(scores)             when the score_mod graph attribute is given
//   probs  = softmax(scores, last axis)
//   probs  = prob_mod(probs)               when the prob_mod graph attribute is given
//   Y      = probs V                       (B, Hq, L, Ev)
//   inputs:  Q (B, Hq, L, E), K (B, Hkv, S, E), V (B, Hkv, S, Ev), one float type; query head
//            h reads K/V head h / (Hq / Hkv) (Hq a multiple of Hkv).
//   attributes: scale (1 / sqrt(E)), softmax_precision (the element type of scores and probs,
//            float32 (1) by default, double (11) for double inputs; 1 and 11 are taken, the
//            16-bit ones are refused), score_mod, prob_mod (graphs of one rank-4 input and one
//            output of the same shape and type; they may read outer-scope values).
// Scores, softmax and the V product are computed in the softmax precision; (batch, head)
// pairs run in parallel. A row whose scores are all -inf gives NaN probabilities, as softmax's
// definition does.
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/gemm.h"
#include "kernels/kernel.h"
#include "kernels/vector_math.h"
#include "session/graph_plan.h"

namespace onyx {
namespace {

template <typename C>
void softmax_rows(const C* x, C* y, int64_t rows, int64_t n) {
  parallel_for(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, n)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      if constexpr (std::is_same_v<C, float>) {
        vec::softmax_row(x + r * n, y + r * n, n);
      } else {
        const C* in = x + r * n;
        C* out = y + r * n;
        C mx = -std::numeric_limits<C>::infinity();
        bool nan = false;
        for (int64_t i = 0; i < n; ++i) {
          nan |= std::isnan(in[i]);
          mx = std::max(mx, in[i]);
        }
        if (nan) mx = std::numeric_limits<C>::quiet_NaN();
        C sum = 0;
        for (int64_t i = 0; i < n; ++i) sum += (out[i] = std::exp(in[i] - mx));
        for (int64_t i = 0; i < n; ++i) out[i] /= sum;
      }
    }
  });
}

class FlexAttentionKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    has_scale_ = info.has_attr("scale");
    scale_ = info.attr_float("scale", 0.f);
    precision_ = info.attr_int("softmax_precision", 0);
    if (precision_ != 0 && precision_ != 1 && precision_ != 11)
      return not_implemented("FlexAttention: softmax_precision ", precision_, " (only float (1) and double (11))");
    if (info.has_attr("score_mod")) {
      ONYX_ASSIGN_OR_RETURN(score_mod_, info.subgraph("score_mod"));
    }
    if (info.has_attr("prob_mod")) {
      ONYX_ASSIGN_OR_RETURN(prob_mod_, info.subgraph("prob_mod"));
    }
    for (const auto* g : {score_mod_.get(), prob_mod_.get()})
      if (g && (g->num_inputs() != 1 || g->num_outputs() != 1))
        return invalid_model("FlexAttention: score_mod and prob_mod must have one input and one output");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4 || k.dtype() != q.dtype() || v.dtype() != q.dtype())
      return invalid_argument("FlexAttention: Q, K and V must be rank-4 tensors of one type, got ", q.describe(), ", ",
                              k.describe(), " and ", v.describe());
    const int64_t batch = q.dim(0), q_heads = q.dim(1), len = q.dim(2), e = q.dim(3);
    const int64_t kv_heads = k.dim(1), src = k.dim(2), ev = v.dim(3);
    if (k.dim(0) != batch || v.dim(0) != batch || v.dim(1) != kv_heads || v.dim(2) != src || k.dim(3) != e)
      return invalid_argument("FlexAttention: Q ", q.describe(), ", K ", k.describe(), " and V ", v.describe(),
                              " do not agree on batch, heads, sequence or head size");
    if (kv_heads <= 0 || q_heads % kv_heads != 0)
      return invalid_argument("FlexAttention: Q's ", q_heads, " heads are not a multiple of K's ", kv_heads);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, q.dtype(), {batch, q_heads, len, ev}));
    if (y->numel() == 0) return Status::Ok();
    const bool in_double = precision_ == 11 || (precision_ == 0 && q.dtype() == DataType::kDouble);
    const double scale = has_scale_ ? double(scale_) : 1.0 / std::sqrt(double(e));
    return dispatch<ONYX_FLOAT_TYPES>(q.dtype(), [&]<typename T>() -> Status {
      if (in_double) return run<T, double>(ctx, q, k, v, *y, scale);
      return run<T, float>(ctx, q, k, v, *y, scale);
    });
  }

 private:
  // The modifier's output for `in`, checked to keep its shape and type.
  Result<Tensor> apply_mod(KernelContext& ctx, const SubgraphPlan& g, const Tensor& in, const char* name) const {
    ONYX_ASSIGN_OR_RETURN(std::vector<Value> outs, ctx.run_subgraph(g, {Value(in)}));
    if (outs.size() != 1 || !outs[0].is_tensor() || outs[0].tensor().dtype() != in.dtype() ||
        outs[0].tensor().shape() != in.shape())
      return invalid_argument("FlexAttention: ", name, " must return a tensor like its input ", in.describe(), ", got ",
                              outs.empty() ? std::string("nothing") : outs[0].describe());
    return outs[0].tensor();
  }

  template <typename T, typename C>
  Status run(KernelContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v, Tensor& y, double scale) const {
    const int64_t batch = q.dim(0), q_heads = q.dim(1), len = q.dim(2), e = q.dim(3);
    const int64_t kv_heads = k.dim(1), src = k.dim(2), ev = v.dim(3);
    const int64_t group = q_heads / kv_heads;
    const DataType ctype = std::is_same_v<C, double> ? DataType::kDouble : DataType::kFloat;
    const Shape score_shape{batch, q_heads, len, src};
    ONYX_ASSIGN_OR_RETURN(Tensor scores, ctx.allocate_scratch(ctype, score_shape));
    const T* qp = q.data<T>();
    const T* kp = k.data<T>();
    const T* vp = v.data<T>();
    C* sp = scores.data<C>();
    parallel_for(batch * q_heads, 1, [&](int64_t h0, int64_t h1) {
      std::vector<C> qbuf, kbuf;
      for (int64_t bh = h0; bh < h1; ++bh) {
        const int64_t kvh = (bh / q_heads) * kv_heads + (bh % q_heads) / group;
        const C* qc = as_compute_type<C>(qp + bh * len * e, len * e, qbuf);
        const C* kc = as_compute_type<C>(kp + kvh * src * e, src * e, kbuf);
        gemm<C>(false, true, len, src, e, C(scale), qc, e, kc, e, C(0), sp + bh * len * src, src);
      }
    });
    if (score_mod_) {
      ONYX_ASSIGN_OR_RETURN(scores, apply_mod(ctx, *score_mod_, scores, "score_mod"));
    }
    ONYX_ASSIGN_OR_RETURN(Tensor probs, ctx.allocate_scratch(ctype, score_shape));
    if (src > 0) softmax_rows(scores.data<C>(), probs.data<C>(), batch * q_heads * len, src);
    if (prob_mod_) {
      ONYX_ASSIGN_OR_RETURN(probs, apply_mod(ctx, *prob_mod_, probs, "prob_mod"));
    }
    if (src == 0) return Status::Ok();  // an empty sum: Y stays zero
    const C* pp = probs.data<C>();
    T* yp = y.data<T>();
    parallel_for(batch * q_heads, 1, [&](int64_t h0, int64_t h1) {
      std::vector<C> vbuf, ybuf(std::is_same_v<T, C> ? 0 : static_cast<size_t>(len * ev));
      for (int64_t bh = h0; bh < h1; ++bh) {
        const int64_t kvh = (bh / q_heads) * kv_heads + (bh % q_heads) / group;
        const C* vc = as_compute_type<C>(vp + kvh * src * ev, src * ev, vbuf);
        if constexpr (std::is_same_v<T, C>) {
          gemm<C>(false, false, len, ev, src, C(1), pp + bh * len * src, src, vc, ev, C(0), yp + bh * len * ev, ev);
        } else {
          gemm<C>(false, false, len, ev, src, C(1), pp + bh * len * src, src, vc, ev, C(0), ybuf.data(), ev);
          for (int64_t i = 0; i < len * ev; ++i) yp[bh * len * ev + i] = T(ybuf[size_t(i)]);
        }
      }
    });
    return Status::Ok();
  }

  bool has_scale_ = false;
  float scale_ = 0.f;
  int64_t precision_ = 0;
  std::shared_ptr<const SubgraphPlan> score_mod_, prob_mod_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.preview", "FlexAttention", 1, kLatestOpset, FlexAttentionKernel);

}  // namespace onyx
