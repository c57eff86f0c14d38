// com.microsoft RotaryEmbedding (contrib op, since 1): rotates the first D elements of every
// head vector x (length H) by position-dependent angles, pairing element i with i + D/2
// (interleaved = 0) or 2p with 2p + 1 (interleaved = 1):
//   y[i]       = x[i] * cos[pos, i] - x[i + D/2] * sin[pos, i]
//   y[i + D/2] = x[i + D/2] * cos[pos, i] + x[i] * sin[pos, i]        (i < D/2; interleaved
//   alike on the pairs); y[D:H] = x[D:H].
//   inputs:  input (B, S, N * H) with heads side by side, or (B, N, S, H); position_ids int64,
//            one value p (positions p + s) or (B, S); cos_cache, sin_cache (max_seq, D/2).
//   attributes: interleaved (0), num_heads (0: H = 2 * cos_cache.dim(1) for 3-D input),
//            rotary_embedding_dim (0: D = H; else D, which needs num_heads), scale (documented
//            as affecting cache generation only: unused here), is_packed_batching (0; 1 is
//            refused: its semantics are unpublished).
// float32, float16, bfloat16 (computed in float). Positions outside [0, max_seq) are errors.
//
// ai.onnx RotaryEmbedding (since 23): the same rotation with the inputs in another order and
// the caches read two ways:
//   inputs:  X (B, N, S, H) or (B, S, N * H) (num_heads required for 3-D), cos_cache,
//            sin_cache, position_ids (optional, int64 (B, S)). With position_ids the caches
//            are (max_position, D/2) tables indexed by them; without, they are (B, S, D/2),
//            one row per token.
//   attributes: interleaved (0), num_heads (0), rotary_embedding_dim (0: D = H).
#include <vector>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/rotary.h"

namespace onyx {
namespace {

// Where the tokens' head vectors lie: x and y are (B, N, S, H) when bnsh, else (B, S, N, H).
struct RotaryLayout {
  int64_t batch = 0, seq = 0, heads = 0, head = 0, rot = 0;
  bool bnsh = false;
};

// Rotates every head vector of token (b, s) by the cache row rows[b * seq + s] (each row
// rot / 2 values of cos and of sin); the elements past rot are copied. rows are in range.
template <typename T>
void rotate_tokens(const T* xp, T* yp, const T* cp, const T* sp, const RotaryLayout& l, const int64_t* rows,
                   bool interleaved) {
  const int64_t half = l.rot / 2;
  const int64_t stride_b = l.heads * l.seq * l.head;
  const int64_t stride_s = l.bnsh ? l.head : l.heads * l.head;
  const int64_t stride_n = l.bnsh ? l.seq * l.head : l.head;
  parallel_for(l.batch * l.seq, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, l.heads * l.head)),
               [&](int64_t t0, int64_t t1) {
    std::vector<float> c(static_cast<size_t>(half)), sn(static_cast<size_t>(half));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t b = t / l.seq, s = t % l.seq;
      const int64_t p = rows[t];
      for (int64_t i = 0; i < half; ++i) {
        c[size_t(i)] = float(cp[p * half + i]);
        sn[size_t(i)] = float(sp[p * half + i]);
      }
      for (int64_t n = 0; n < l.heads; ++n) {
        const int64_t o = b * stride_b + s * stride_s + n * stride_n;
        const T* in = xp + o;
        T* out = yp + o;
        rotate_head(in, out, c.data(), sn.data(), half, interleaved);
        for (int64_t i = l.rot; i < l.head; ++i) out[i] = in[i];
      }
    }
  });
}

class RotaryEmbeddingKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    interleaved_ = info.attr_int("interleaved", 0) != 0;
    num_heads_ = info.attr_int("num_heads", 0);
    rotary_dim_ = info.attr_int("rotary_embedding_dim", 0);
    if (info.attr_int("is_packed_batching", 0) != 0)
      return not_implemented("RotaryEmbedding with is_packed_batching = 1 (its layout is not published)");
    if (num_heads_ < 0 || rotary_dim_ < 0) return invalid_argument("RotaryEmbedding: num_heads and rotary_embedding_dim must be >= 0");
    if (rotary_dim_ > 0 && num_heads_ == 0)
      return invalid_argument("RotaryEmbedding: rotary_embedding_dim needs num_heads");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& positions = ctx.input(1);
    const Tensor& cos = ctx.input(2);
    const Tensor& sin = ctx.input(3);
    if (cos.rank() != 2 || sin.shape() != cos.shape() || cos.dtype() != x.dtype() || sin.dtype() != x.dtype())
      return invalid_argument("RotaryEmbedding: cos_cache and sin_cache must be 2-D (max_seq, D/2) of the input's type, got ",
                              cos.describe(), " and ", sin.describe());
    if (x.rank() != 3 && x.rank() != 4)
      return invalid_argument("RotaryEmbedding: input must be (B, S, hidden) or (B, N, S, H), got ", x.describe());
    const int64_t batch = x.dim(0);
    const bool bnsh = x.rank() == 4;
    const int64_t seq = bnsh ? x.dim(2) : x.dim(1);
    int64_t head = 0, heads = 0;
    if (bnsh) {
      heads = x.dim(1);
      head = x.dim(3);
    } else {
      const int64_t hidden = x.dim(2);
      head = num_heads_ > 0 ? (hidden % num_heads_ == 0 ? hidden / num_heads_ : -1) : 2 * cos.dim(1);
      if (head <= 0 || hidden % head != 0)
        return invalid_argument("RotaryEmbedding: hidden size ", hidden, " is not a whole number of heads (num_heads ",
                                num_heads_, ", cos_cache ", cos.describe(), ")");
      heads = hidden / head;
    }
    const int64_t rot = rotary_dim_ > 0 ? rotary_dim_ : head;
    if (rot > head || rot % 2 != 0 || cos.dim(1) != rot / 2)
      return invalid_argument("RotaryEmbedding: rotary width ", rot, " must be even, at most the head size ", head,
                              ", and twice cos_cache's second dim (", cos.describe(), ")");
    if (positions.dtype() != DataType::kInt64)
      return invalid_argument("RotaryEmbedding: position_ids must be int64, got ", positions.describe());
    const bool one_start = positions.numel() == 1;
    if (!one_start && positions.shape() != Shape{batch, seq})
      return invalid_argument("RotaryEmbedding: position_ids must hold one value or be (B, S) = (", batch, ", ", seq,
                              "), got ", positions.describe());
    const int64_t max_seq = cos.dim(0);
    const int64_t* pos_data = positions.data<int64_t>();
    if (one_start) {
      const int64_t p0 = pos_data[0];
      if (seq > 0 && (p0 < 0 || p0 >= max_seq || seq - 1 >= max_seq - p0))
        return invalid_argument("RotaryEmbedding: positions ", p0, " to ", p0, " + ", seq - 1,
                                " are not all inside the caches' ", max_seq, " rows");
    } else {
      for (int64_t i = 0; i < batch * seq; ++i)
        if (pos_data[i] < 0 || pos_data[i] >= max_seq)
          return invalid_argument("RotaryEmbedding: position ", pos_data[i], " of batch ", i / seq, ", token ", i % seq,
                                  " is outside the caches' ", max_seq, " rows");
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    if (x.numel() == 0) return Status::Ok();
    std::vector<int64_t> rows(static_cast<size_t>(batch * seq));
    for (int64_t t = 0; t < batch * seq; ++t) rows[size_t(t)] = one_start ? pos_data[0] + t % seq : pos_data[t];
    const RotaryLayout layout{batch, seq, heads, head, rot, bnsh};
    return dispatch<float, Float16, BFloat16>(x.dtype(), [&]<typename T>() -> Status {
      rotate_tokens(x.data<T>(), y->data<T>(), cos.data<T>(), sin.data<T>(), layout, rows.data(), interleaved_);
      return Status::Ok();
    });
  }

 private:
  bool interleaved_ = false;
  int64_t num_heads_ = 0, rotary_dim_ = 0;
};

class OnnxRotaryEmbeddingKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    interleaved_ = info.attr_int("interleaved", 0) != 0;
    num_heads_ = info.attr_int("num_heads", 0);
    rotary_dim_ = info.attr_int("rotary_embedding_dim", 0);
    if (num_heads_ < 0 || rotary_dim_ < 0) return invalid_argument("RotaryEmbedding: num_heads and rotary_embedding_dim must be >= 0");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& cos = ctx.input(1);
    const Tensor& sin = ctx.input(2);
    const bool has_positions = ctx.has_input(3);
    if (x.rank() != 3 && x.rank() != 4)
      return invalid_argument("RotaryEmbedding: X must be (B, N, S, H) or (B, S, hidden), got ", x.describe());
    if (cos.dtype() != x.dtype() || sin.dtype() != x.dtype() || sin.shape() != cos.shape())
      return invalid_argument("RotaryEmbedding: cos_cache and sin_cache must have one shape and X's type, got ",
                              cos.describe(), " and ", sin.describe(), " for X ", x.describe());
    RotaryLayout l;
    l.bnsh = x.rank() == 4;
    l.batch = x.dim(0);
    l.seq = l.bnsh ? x.dim(2) : x.dim(1);
    if (l.bnsh) {
      l.heads = x.dim(1);
      l.head = x.dim(3);
    } else {
      if (num_heads_ == 0) return invalid_argument("RotaryEmbedding: a 3-D X ", x.describe(), " needs num_heads");
      if (x.dim(2) % num_heads_ != 0)
        return invalid_argument("RotaryEmbedding: hidden size ", x.dim(2), " of X is not a multiple of num_heads ",
                                num_heads_);
      l.heads = num_heads_;
      l.head = x.dim(2) / num_heads_;
    }
    l.rot = rotary_dim_ > 0 ? rotary_dim_ : l.head;
    if (l.rot > l.head || l.rot % 2 != 0)
      return invalid_argument("RotaryEmbedding: rotary width ", l.rot, " must be even and at most the head size ", l.head);
    const int64_t tokens = l.batch * l.seq;
    std::vector<int64_t> rows(static_cast<size_t>(tokens));
    if (has_positions) {
      const Tensor& positions = ctx.input(3);
      if (positions.dtype() != DataType::kInt64 || positions.shape() != Shape{l.batch, l.seq})
        return invalid_argument("RotaryEmbedding: position_ids must be int64 (B, S) = (", l.batch, ", ", l.seq,
                                "), got ", positions.describe());
      if (cos.rank() != 2 || cos.dim(1) != l.rot / 2)
        return invalid_argument("RotaryEmbedding: with position_ids the caches must be (max_position, ", l.rot / 2,
                                "), got ", cos.describe());
      const int64_t* pos = positions.data<int64_t>();
      for (int64_t t = 0; t < tokens; ++t) {
        if (pos[t] < 0 || pos[t] >= cos.dim(0))
          return invalid_argument("RotaryEmbedding: position ", pos[t], " of batch ", t / l.seq, ", token ", t % l.seq,
                                  " is outside the caches' ", cos.dim(0), " rows");
        rows[size_t(t)] = pos[t];
      }
    } else {
      if (cos.shape() != Shape{l.batch, l.seq, l.rot / 2})
        return invalid_argument("RotaryEmbedding: without position_ids the caches must be (B, S, D/2) = (", l.batch,
                                ", ", l.seq, ", ", l.rot / 2, "), got ", cos.describe());
      for (int64_t t = 0; t < tokens; ++t) rows[size_t(t)] = t;
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    if (x.numel() == 0) return Status::Ok();
    return dispatch<float, Float16, BFloat16>(x.dtype(), [&]<typename T>() -> Status {
      rotate_tokens(x.data<T>(), y->data<T>(), cos.data<T>(), sin.data<T>(), l, rows.data(), interleaved_);
      return Status::Ok();
    });
  }

 private:
  bool interleaved_ = false;
  int64_t num_heads_ = 0, rotary_dim_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "RotaryEmbedding", 1, kLatestOpset, RotaryEmbeddingKernel);
ONYX_REGISTER_KERNEL("", "RotaryEmbedding", 23, kLatestOpset, OnnxRotaryEmbeddingKernel);

}  // namespace onyx
