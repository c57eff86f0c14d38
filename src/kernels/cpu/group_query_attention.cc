// com.microsoft GroupQueryAttention (contrib op, since 1), float32, with its key/value cache:
//   inputs:  query (B, S, Nq*H), or packed Q|K|V (B, S, (Nq + 2 Nkv) * H) when key and value
//            are absent; key, value (B, S, Nkv*H); past_key, past_value (B, Nkv, Lp, H), both or
//            neither; seqlens_k (B) int32 = total_b - 1 (past plus new valid tokens, minus 1);
//            total_sequence_length (int32 scalar, T = max total_b); cos_cache, sin_cache
//            (max_pos, D/2) with do_rotary; position_ids (optional int64 (B, S));
//            attention_bias (optional, (B or 1, Nq or 1, S, T)); head_sink (optional, (Nq)).
//   attributes: num_heads Nq, kv_num_heads Nkv (Nq % Nkv == 0), causal (1), scale
//            (1/sqrt(H)), softcap (0: off), local_window_size (-1: off), do_rotary,
//            rotary_interleaved, smooth_softmax (1: a zero sink logit).
//   outputs: output (B, S, Nq*H); present_key, present_value (B, Nkv, max(T, Lp), H).
// The first prompt is S == T (no past; rows of a batch item past its total_b are padding);
// otherwise batch item b has past_b = total_b - S past tokens. present rows [0, past_b) are the
// past's, [past_b, past_b + S) the new keys and values (rotated), the rest zero; a present bound
// to its past's buffer (ONNX Runtime's shared past/present buffer, through IoBinding) is updated
// in place: only the new rows are written. Query s of b,
// at position p = past_b + s, with query head h reading kv head h / (Nq / Nkv), sees keys
// [lo, L): L = min(p + 1, total_b) when causal (else total_b), lo = L - W when a window W >= 0
// is shorter than L. Scores: scale * q.k, then softcap * tanh(x / softcap), then + bias; a
// softmax over the keys seen, with a sink logit (head_sink[h], or 0 with smooth_softmax) in
// its denominator. Rotary positions: first prompt position_ids[0, 0] (or 0) + s, else
// position_ids[b, s] (or past_b + s). Quantised caches, sliding-window caches, QK
// normalisation and the output_qk output are refused by name.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/parallel.h"
#include "kernels/kernel.h"
#include "kernels/rotary.h"
#include "kernels/small_matmul.h"
#include "kernels/vector_math.h"

namespace onyx {
namespace {

class GroupQueryAttentionKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    nq_ = info.attr_int("num_heads", 0);
    nkv_ = info.attr_int("kv_num_heads", 0);
    if (nq_ <= 0 || nkv_ <= 0 || nq_ % nkv_ != 0)
      return invalid_model("GroupQueryAttention: num_heads (", nq_, ") must be a positive multiple of kv_num_heads (",
                           nkv_, ")");
    causal_ = info.attr_int("causal", 1) != 0;
    has_scale_ = info.has_attr("scale");
    scale_ = info.attr_float("scale", 0.f);
    softcap_ = info.attr_float("softcap", 0.f);
    window_ = info.attr_int("local_window_size", -1);
    if (window_ >= 0 && !causal_) return invalid_model("GroupQueryAttention: local_window_size needs causal = 1");
    rotary_ = info.attr_int("do_rotary", 0) != 0;
    interleaved_ = info.attr_int("rotary_interleaved", 0) != 0;
    smooth_ = info.attr_int("smooth_softmax", -1) == 1;
    if (info.attr_int("sliding_window_cache", 0) != 0) return not_implemented("GroupQueryAttention: sliding_window_cache");
    if (info.attr_int("qk_output", 0) != 0 || (info.num_outputs() > 3 && !info.node().outputs[3].empty()))
      return not_implemented("GroupQueryAttention: the output_qk output");
    for (const char* q : {"k_quant_type", "v_quant_type"})
      if (info.attr_string(q, "NONE") != "NONE") return not_implemented("GroupQueryAttention: quantised key/value caches");
    for (int i = 12; i <= 15; ++i)
      if (info.has_input(i)) return not_implemented("GroupQueryAttention: k_scale, v_scale and QK normalisation");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& query = ctx.input(0);
    const bool packed = !ctx.has_input(1) && !ctx.has_input(2);
    if (!packed && (!ctx.has_input(1) || !ctx.has_input(2)))
      return invalid_argument("GroupQueryAttention: give key and value together, or neither (packed QKV)");
    const bool has_past = ctx.has_input(3) || ctx.has_input(4);
    if (has_past && (!ctx.has_input(3) || !ctx.has_input(4)))
      return invalid_argument("GroupQueryAttention: give past_key and past_value together");
    for (int i : {0, 1, 2, 3, 4, 7, 8, 10, 11})
      if (ctx.has_input(i) && ctx.input(i).dtype() != DataType::kFloat)
        return not_implemented("GroupQueryAttention: ", ctx.input(i).describe(), " (float32 only)");
    if (query.rank() != 3) return invalid_argument("GroupQueryAttention: query must be (B, S, hidden), got ", query.describe());
    const int64_t batch = query.dim(0), seq = query.dim(1);
    const int64_t width = query.dim(2);
    const int64_t heads_total = packed ? nq_ + 2 * nkv_ : nq_;
    if (width % heads_total != 0)
      return invalid_argument("GroupQueryAttention: query ", query.describe(), " is not ", heads_total, " heads wide");
    const int64_t h = width / heads_total;
    const int64_t ldq = width;  // elements between tokens of the query rows
    const float* qp = query.data<float>();
    const float* kp = packed ? qp + nq_ * h : nullptr;
    const float* vp = packed ? qp + (nq_ + nkv_) * h : nullptr;
    int64_t ldkv = width;
    if (!packed) {
      const Tensor& k = ctx.input(1);
      const Tensor& v = ctx.input(2);
      if (k.shape() != Shape{batch, seq, nkv_ * h} || v.shape() != k.shape())
        return invalid_argument("GroupQueryAttention: key ", k.describe(), " and value ", v.describe(), " must be (",
                                batch, ", ", seq, ", ", nkv_ * h, ")");
      kp = k.data<float>();
      vp = v.data<float>();
      ldkv = nkv_ * h;
    }
    int64_t lp = 0;
    if (has_past) {
      const Tensor& pk = ctx.input(3);
      lp = pk.rank() == 4 ? pk.dim(2) : -1;
      if (pk.rank() != 4 || pk.dim(0) != batch || pk.dim(1) != nkv_ || pk.dim(3) != h || ctx.input(4).shape() != pk.shape())
        return invalid_argument("GroupQueryAttention: past_key ", pk.describe(), " and past_value ",
                                ctx.input(4).describe(), " must be (", batch, ", ", nkv_, ", past, ", h, ")");
    }
    const Tensor& seqlens = ctx.input(5);
    const Tensor& total_t = ctx.input(6);
    if (!seqlens.defined() || seqlens.dtype() != DataType::kInt32 || seqlens.shape() != Shape{batch})
      return invalid_argument("GroupQueryAttention: seqlens_k must be int32 (", batch, ")");
    if (!total_t.defined() || total_t.dtype() != DataType::kInt32 || total_t.numel() != 1)
      return invalid_argument("GroupQueryAttention: total_sequence_length must be one int32");
    const int64_t total = total_t.get_int64(0);
    const bool first = seq == total;
    const int64_t lpres = std::max(total, lp);
    std::vector<int64_t> past_len(static_cast<size_t>(batch)), valid(static_cast<size_t>(batch));
    for (int64_t b = 0; b < batch; ++b) {
      valid[size_t(b)] = int64_t(seqlens.data<int32_t>()[b]) + 1;
      past_len[size_t(b)] = first ? 0 : valid[size_t(b)] - seq;
      if (valid[size_t(b)] < 1 || valid[size_t(b)] > total || past_len[size_t(b)] < 0 || past_len[size_t(b)] > lp)
        return invalid_argument("GroupQueryAttention: seqlens_k[", b, "] = ", valid[size_t(b)] - 1,
                                " does not fit total_sequence_length ", total, ", ", seq, " new tokens and a past of ", lp);
    }
    // Rotary tables and positions.
    const Tensor* cos = rotary_ ? &ctx.input(7) : nullptr;
    const Tensor* sin = rotary_ ? &ctx.input(8) : nullptr;
    int64_t half = 0;
    if (rotary_) {
      if (!cos->defined() || !sin->defined() || cos->rank() != 2 || sin->shape() != cos->shape() ||
          2 * cos->dim(1) > h)
        return invalid_argument("GroupQueryAttention: do_rotary needs cos_cache and sin_cache (max_pos, D/2) with D <= ",
                                h);
      half = cos->dim(1);
    }
    const Tensor* pos_ids = ctx.has_input(9) ? &ctx.input(9) : nullptr;
    if (pos_ids && (pos_ids->dtype() != DataType::kInt64 || pos_ids->numel() < 1 ||
                    (!first && pos_ids->shape() != Shape{batch, seq})))
      return invalid_argument("GroupQueryAttention: position_ids must be int64 (", batch, ", ", seq, ")");
    auto position = [&](int64_t b, int64_t s) -> int64_t {
      if (first) return (pos_ids ? pos_ids->data<int64_t>()[0] : 0) + s;
      return pos_ids ? pos_ids->data<int64_t>()[b * seq + s] : past_len[size_t(b)] + s;
    };
    if (rotary_)
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t s = 0; s < seq; ++s)
          if (const int64_t p = position(b, s); p < 0 || p >= cos->dim(0))
            return invalid_argument("GroupQueryAttention: position ", p, " is outside the rotary caches' ", cos->dim(0),
                                    " rows");
    const Tensor* bias = ctx.has_input(10) ? &ctx.input(10) : nullptr;
    if (bias && (bias->rank() != 4 || (bias->dim(0) != 1 && bias->dim(0) != batch) ||
                 (bias->dim(1) != 1 && bias->dim(1) != nq_) || bias->dim(2) != seq || bias->dim(3) != total))
      return invalid_argument("GroupQueryAttention: attention_bias ", bias->describe(), " must be (", batch, " or 1, ",
                              nq_, " or 1, ", seq, ", ", total, ")");
    const Tensor* sink = ctx.has_input(11) ? &ctx.input(11) : nullptr;
    if (sink && sink->numel() != nq_)
      return invalid_argument("GroupQueryAttention: head_sink must have ", nq_, " values, got ", sink->describe());

    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, DataType::kFloat, {batch, seq, nq_ * h}));
    // The present caches: outputs when asked for, else scratch. A present bound to its past's
    // own buffer (IoBinding, in_place_outputs) already holds the past rows, and its rows past
    // the new tokens are the caller's; otherwise the past is copied and the rest zeroed.
    const Shape cache_shape{batch, nkv_, lpres, h};
    Tensor k_scratch, v_scratch;
    float* pk = nullptr;
    float* pv = nullptr;
    bool in_place[2] = {false, false};
    for (int which = 0; which < 2; ++which) {
      Tensor* t = nullptr;
      if (ctx.output_requested(1 + which)) {
        ONYX_ASSIGN_OR_RETURN(t, ctx.allocate_output_uninitialized(1 + which, DataType::kFloat, cache_shape));
      } else {
        ONYX_ASSIGN_OR_RETURN(which == 0 ? k_scratch : v_scratch, ctx.allocate_scratch(DataType::kFloat, cache_shape));
        t = which == 0 ? &k_scratch : &v_scratch;
      }
      (which == 0 ? pk : pv) = t->data<float>();
      in_place[which] = has_past && lp == lpres && t->data<float>() == ctx.input(3 + which).data<float>();
    }
    if (y->numel() == 0) return Status::Ok();

    // Fill the caches: the past, then the new (rotated) keys and values.
    std::vector<float> cs(static_cast<size_t>(half)), sn(static_cast<size_t>(half));
    auto load_angles = [&](int64_t p, float* c, float* s) {
      for (int64_t i = 0; i < half; ++i) {
        c[i] = cos->data<float>()[p * half + i];
        s[i] = sin->data<float>()[p * half + i];
      }
    };
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t past = past_len[size_t(b)];
      for (int64_t g = 0; g < nkv_; ++g) {
        float* kc = pk + (b * nkv_ + g) * lpres * h;
        float* vc = pv + (b * nkv_ + g) * lpres * h;
        if (past > 0 && !in_place[0])
          std::memcpy(kc, ctx.input(3).data<float>() + (b * nkv_ + g) * lp * h, size_t(past * h) * sizeof(float));
        if (past > 0 && !in_place[1])
          std::memcpy(vc, ctx.input(4).data<float>() + (b * nkv_ + g) * lp * h, size_t(past * h) * sizeof(float));
        const size_t tail = size_t((lpres - past - seq) * h) * sizeof(float);
        if (!in_place[0]) std::memset(kc + (past + seq) * h, 0, tail);
        if (!in_place[1]) std::memset(vc + (past + seq) * h, 0, tail);
        for (int64_t s = 0; s < seq; ++s) {
          const float* kin = kp + (b * seq + s) * ldkv + g * h;
          std::memcpy(kc + (past + s) * h, kin, size_t(h) * sizeof(float));
          std::memcpy(vc + (past + s) * h, vp + (b * seq + s) * ldkv + g * h, size_t(h) * sizeof(float));
          if (rotary_) {
            load_angles(position(b, s), cs.data(), sn.data());
            rotate_head(kc + (past + s) * h, kc + (past + s) * h, cs.data(), sn.data(), half, interleaved_);
          }
        }
      }
    }

    const float scale = has_scale_ ? scale_ : float(1.0 / std::sqrt(double(h)));
    const int64_t group = nq_ / nkv_;
    auto bias_row = [&](int64_t b, int64_t n, int64_t s) -> const float* {
      return bias ? bias->data<float>() +
                        (((bias->dim(0) == 1 ? 0 : b) * bias->dim(1) + (bias->dim(1) == 1 ? 0 : n)) * seq + s) * total
                  : nullptr;
    };
    // Keys [lo, hi) seen by query row s of batch item b.
    auto seen = [&](int64_t b, int64_t s) {
      const int64_t p = past_len[size_t(b)] + s, tb = valid[size_t(b)];
      const int64_t hi = causal_ ? std::min(p + 1, tb) : tb;
      return std::pair<int64_t, int64_t>{window_ >= 0 && hi > window_ ? hi - window_ : 0, hi};
    };
    if (seq >= kProductRows && !sink && !smooth_) {
      prompt_heads(batch, seq, h, half, lpres, ldq, qp, pk, pv, scale, group, cos, sin, position, seen, bias_row, *y);
      return Status::Ok();
    }
    parallel_for(batch * nq_ * seq, 1, [&](int64_t t0, int64_t t1) {
      std::vector<float> q(static_cast<size_t>(h)), x(static_cast<size_t>(lpres)), c(static_cast<size_t>(half)), s_(static_cast<size_t>(half));
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t b = t / (nq_ * seq), n = (t / seq) % nq_, s = t % seq;
        std::memcpy(q.data(), qp + (b * seq + s) * ldq + n * h, size_t(h) * sizeof(float));
        if (rotary_) {
          load_angles(position(b, s), c.data(), s_.data());
          rotate_head(q.data(), q.data(), c.data(), s_.data(), half, interleaved_);
        }
        const auto [lo, hi] = seen(b, s);
        const int64_t g = n / group;
        const float* kc = pk + (b * nkv_ + g) * lpres * h;
        const float* vc = pv + (b * nkv_ + g) * lpres * h;
        const float* brow = bias_row(b, n, s);
        float m = sink ? sink->data<float>()[n] : (smooth_ ? 0.f : -INFINITY);
        vec::row_dots(q.data(), kc + lo * h, hi - lo, h, h, x.data() + lo);
        for (int64_t j = lo; j < hi; ++j) {
          float v = x[size_t(j)] * scale;
          if (softcap_ > 0) v = softcap_ * std::tanh(v / softcap_);
          if (brow) v += brow[j];
          x[size_t(j)] = v;
          m = std::max(m, v);
        }
        float* out = y->data<float>() + (b * seq + s) * nq_ * h + n * h;
        if (!sink && !smooth_ && hi > lo) {
          // The plain softmax over the keys seen, then the weighted values (both vectorised).
          vec::softmax_row(x.data() + lo, x.data() + lo, hi - lo);
        } else {
          // A sink or the smooth softmax adds exp(sink - m) (or exp(-m)) to the denominator.
          double denom = sink || smooth_ ? std::exp(double((sink ? sink->data<float>()[n] : 0.f) - m)) : 0.0;
          for (int64_t j = lo; j < hi; ++j) {
            x[size_t(j)] = std::exp(x[size_t(j)] - m);
            denom += x[size_t(j)];
          }
          for (int64_t j = lo; j < hi; ++j) x[size_t(j)] = float(x[size_t(j)] / denom);
        }
        vec::weighted_row_sum(x.data() + lo, vc + lo * h, hi - lo, h, h, out);
      }
    });
    return Status::Ok();
  }

 // present_key / present_value may be written over past_key / past_value (a cache buffer of the
  // caller's, IoBinding): each past row stays where it is, and the new rows it was not holding.
  std::vector<std::pair<int, int>> in_place_outputs() const override { return {{1, 3}, {2, 4}}; }

 private:
  // Many query rows (a prompt) and no sink: per (batch item, query head), the scores of a block
  // of rows as one small product against the head's keys transposed, a softmax per row over the
  // keys it sees (the rest weigh 0), and one product with the values into the output rows.
  // Causal rows go in blocks of kProductRows, each against the keys its last row sees.
  template <class Position, class Seen, class BiasRow>
  void prompt_heads(int64_t batch, int64_t seq, int64_t h, int64_t half, int64_t lpres, int64_t ldq, const float* qp,
                    const float* pk, const float* pv, float scale, int64_t group, const Tensor* cos, const Tensor* sin,
                    const Position& position, const Seen& seen, const BiasRow& bias_row, Tensor& y) const {
    parallel_for(batch * nq_, 1, [&](int64_t t0, int64_t t1) {
      std::vector<float> q(static_cast<size_t>(seq * h)), kt, scores, c(static_cast<size_t>(half)),
          s_(static_cast<size_t>(half));
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t b = t / nq_, n = t % nq_, g = n / group;
        for (int64_t s = 0; s < seq; ++s) {
          float* qs = q.data() + s * h;
          std::memcpy(qs, qp + (b * seq + s) * ldq + n * h, size_t(h) * sizeof(float));
          if (rotary_) {
            const int64_t p = position(b, s);
            for (int64_t i = 0; i < half; ++i) {
              c[size_t(i)] = cos->data<float>()[p * half + i];
              s_[size_t(i)] = sin->data<float>()[p * half + i];
            }
            rotate_head(qs, qs, c.data(), s_.data(), half, interleaved_);
          }
        }
        const int64_t width = seen(b, seq - 1).second;  // the most keys a row sees (hi grows with s)
        const float* kc = pk + (b * nkv_ + g) * lpres * h;
        const float* vc = pv + (b * nkv_ + g) * lpres * h;
        kt.resize(size_t(h * width));
        for (int64_t l = 0; l < width; ++l)
          for (int64_t j = 0; j < h; ++j) kt[size_t(j * width + l)] = kc[l * h + j];
        scores.resize(size_t(kProductRows * width));
        for (int64_t s0 = 0; s0 < seq; s0 += kProductRows) {
          const int64_t rows = std::min(kProductRows, seq - s0);
          const int64_t w = causal_ ? seen(b, s0 + rows - 1).second : width;
          small_matmul(q.data() + s0 * h, h, kt.data(), width, scores.data(), w, rows, w, h, scale);
          for (int64_t r = 0; r < rows; ++r) {
            float* row = scores.data() + r * w;
            const auto [lo, hi] = seen(b, s0 + r);
            if (softcap_ > 0)
              for (int64_t j = lo; j < hi; ++j) row[j] = softcap_ * std::tanh(row[j] / softcap_);
            if (const float* brow = bias_row(b, n, s0 + r))
              for (int64_t j = lo; j < hi; ++j) row[j] += brow[j];
            vec::softmax_row(row + lo, row + lo, hi - lo);
            std::fill(row, row + lo, 0.f);
            std::fill(row + hi, row + w, 0.f);
          }
          small_matmul(scores.data(), w, vc, h, y.data<float>() + (b * seq + s0) * nq_ * h + n * h, nq_ * h, rows, h, w,
                       1.f);
        }
      }
    });
  }

  static constexpr int64_t kProductRows = 16;  // from this many query rows, the product path

  int64_t nq_ = 0, nkv_ = 0, window_ = -1;
  bool causal_ = true, has_scale_ = false, rotary_ = false, interleaved_ = false, smooth_ = false;
  float scale_ = 0.f, softcap_ = 0.f;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "GroupQueryAttention", 1, kLatestOpset, GroupQueryAttentionKernel);

}  // namespace onyx
