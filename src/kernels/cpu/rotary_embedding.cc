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
#include <vector>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/rotary.h"

namespace onyx {
namespace {

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
    const int64_t half = rot / 2;
    // Element strides of (b, s, n) in x and y (the head vector itself is contiguous).
    const int64_t stride_b = x.numel() / batch;
    const int64_t stride_s = bnsh ? head : heads * head;
    const int64_t stride_n = bnsh ? seq * head : head;

    return dispatch<float, Float16, BFloat16>(x.dtype(), [&]<typename T>() -> Status {
      const T* xp = x.data<T>();
      const T* cp = cos.data<T>();
      const T* sp = sin.data<T>();
      T* yp = y->data<T>();
      parallel_for(batch * seq, std::max<int64_t>(1, 4096 / (heads * head)), [&](int64_t t0, int64_t t1) {
        std::vector<float> c(static_cast<size_t>(half)), sn(static_cast<size_t>(half));
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t b = t / seq, s = t % seq;
          const int64_t p = one_start ? pos_data[0] + s : pos_data[b * seq + s];
          for (int64_t i = 0; i < half; ++i) {
            c[size_t(i)] = float(cp[p * half + i]);
            sn[size_t(i)] = float(sp[p * half + i]);
          }
          for (int64_t n = 0; n < heads; ++n) {
            const int64_t o = b * stride_b + s * stride_s + n * stride_n;
            const T* in = xp + o;
            T* out = yp + o;
            rotate_head(in, out, c.data(), sn.data(), half, interleaved_);
            for (int64_t i = rot; i < head; ++i) out[i] = in[i];
          }
        }
      });
      return Status::Ok();
    });
  }

 private:
  bool interleaved_ = false;
  int64_t num_heads_ = 0, rotary_dim_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "RotaryEmbedding", 1, kLatestOpset, RotaryEmbeddingKernel);

}  // namespace onyx
