// Shared by the RNN, GRU and LSTM kernels: attribute parsing, the activation functions of
// the ONNX recurrent ops, input checking and conversion to one canonical layout, the matrix
// products of the recurrences, and writing the outputs back in the model's layout.
//
// Canonical layout (layout = 0): X [seq, batch, input], Y [seq, dirs, batch, hidden],
// initial/final states [dirs, batch, hidden]. With layout = 1 the kernels read and write
// X [batch, seq, input], Y [batch, seq, dirs, hidden], states [batch, dirs, hidden].
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx::rnn {

// One activation function with its alpha/beta (defaults of the matching ONNX op).
struct Activation {
  enum class Kind { kRelu, kTanh, kSigmoid, kAffine, kLeakyRelu, kThresholdedRelu, kScaledTanh,
                    kHardSigmoid, kElu, kSoftsign, kSoftplus };
  Kind kind = Kind::kTanh;
  float alpha = 0;
  float beta = 0;

  template <typename C>
  C operator()(C x) const {
    const C a = C(alpha), b = C(beta);
    switch (kind) {
      case Kind::kRelu: return x > C(0) ? x : C(0);
      case Kind::kTanh: return std::tanh(x);
      case Kind::kSigmoid: return x >= C(0) ? C(1) / (C(1) + std::exp(-x)) : std::exp(x) / (C(1) + std::exp(x));
      case Kind::kAffine: return a * x + b;
      case Kind::kLeakyRelu: return x >= C(0) ? x : a * x;
      case Kind::kThresholdedRelu: return x >= a ? x : C(0);
      case Kind::kScaledTanh: return a * std::tanh(b * x);
      case Kind::kHardSigmoid: return std::min(std::max(a * x + b, C(0)), C(1));
      case Kind::kElu: return x >= C(0) ? x : a * (std::exp(x) - C(1));
      case Kind::kSoftsign: return x / (C(1) + std::abs(x));
      case Kind::kSoftplus: return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    }
    return x;
  }
};

// Attributes common to the three ops, checked.
struct Attributes {
  bool forward = true;         // direction forward or bidirectional: direction 0 runs forward
  bool bidirectional = false;  // direction 1 (when present) runs in reverse
  int64_t num_directions = 1;
  int64_t hidden_size = -1;    // -1 when absent: taken from R
  float clip = std::numeric_limits<float>::infinity();
  int64_t layout = 0;
  // num_directions * per_direction functions, direction-major.
  std::vector<Activation> activations;
  const Activation& act(int64_t dir, int64_t k, int64_t per_direction) const {
    return activations[size_t(dir * per_direction + k)];
  }
  // Inputs after the op's own that its caller checks (training's LSTMGrad: dY, dY_h, dY_c).
  int trailing_inputs = 0;
  // Whether direction `dir` runs backwards in time.
  bool reverse(int64_t dir) const { return dir == 1 || !forward; }
};

// Parses direction, hidden_size, clip, layout, activations, activation_alpha/beta.
// `defaults` are the per-direction activation names used when the attribute is absent.
Status parse_attributes(const KernelInfo& info, const std::vector<std::string>& defaults, Attributes* out);

// The inputs of one node, checked and converted to the compute type C in canonical layout.
template <typename C>
struct Inputs {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0;
  std::vector<C> x;                // [seq, batch, input]
  std::vector<C> w;                // [dirs, gates*hidden, input]
  std::vector<C> r;                // [dirs, gates*hidden, hidden]
  std::vector<C> b;                // [dirs, 2*gates*hidden], zeros when absent
  std::vector<int64_t> seq_lens;   // [batch], seq when absent
  std::vector<C> h0;               // [dirs, batch, hidden], zeros when absent
  std::vector<C> c0;               // LSTM: [dirs, batch, hidden]
  std::vector<C> p;                // LSTM: [dirs, 3*hidden], zeros when absent
};

// Checks shapes of inputs X, W, R, B, sequence_lens, initial_h (and for LSTM initial_c, P)
// and fills `in`. `gates` is 1 (RNN), 3 (GRU) or 4 (LSTM).
Status check_shapes(const KernelContext& ctx, const Attributes& attrs, int64_t gates, bool lstm,
                    int64_t* seq, int64_t* batch, int64_t* input, int64_t* hidden);

template <typename T, typename C>
void to_compute(const Tensor& t, std::vector<C>& dst) {
  const T* p = t.data<T>();
  dst.resize(size_t(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) dst[size_t(i)] = static_cast<C>(static_cast<compute_t<T>>(p[i]));
}

// Reads a state tensor ([dirs,batch,hidden] or, for layout 1, [batch,dirs,hidden]) canonically.
template <typename T, typename C>
void state_to_compute(const Tensor& t, int64_t layout, int64_t dirs, int64_t batch, int64_t hidden,
                      std::vector<C>& dst) {
  to_compute<T, C>(t, dst);
  if (layout == 0 || dirs == 1) return;
  std::vector<C> src = dst;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t d = 0; d < dirs; ++d)
      std::copy_n(&src[size_t((b * dirs + d) * hidden)], hidden, &dst[size_t((d * batch + b) * hidden)]);
}

template <typename T, typename C>
Status load_inputs(const KernelContext& ctx, const Attributes& attrs, int64_t gates, bool lstm, Inputs<C>* in) {
  ONYX_RETURN_IF_ERROR(check_shapes(ctx, attrs, gates, lstm, &in->seq, &in->batch, &in->input, &in->hidden));
  const int64_t dirs = attrs.num_directions, seq = in->seq, batch = in->batch, hidden = in->hidden;
  to_compute<T, C>(ctx.input(0), in->x);
  if (attrs.layout == 1) {
    std::vector<C> src = in->x;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t s = 0; s < seq; ++s)
        std::copy_n(&src[size_t((b * seq + s) * in->input)], in->input, &in->x[size_t((s * batch + b) * in->input)]);
  }
  to_compute<T, C>(ctx.input(1), in->w);
  to_compute<T, C>(ctx.input(2), in->r);
  if (ctx.has_input(3)) to_compute<T, C>(ctx.input(3), in->b);
  else in->b.assign(size_t(dirs * 2 * gates * hidden), C(0));
  if (ctx.has_input(4)) in->seq_lens = ctx.input(4).to_int64_vector();
  else in->seq_lens.assign(size_t(batch), seq);
  for (int64_t len : in->seq_lens)
    if (len < 0 || len > seq)
      return invalid_argument("sequence_lens value ", len, " is outside [0, ", seq, "]");
  if (ctx.has_input(5)) state_to_compute<T, C>(ctx.input(5), attrs.layout, dirs, batch, hidden, in->h0);
  else in->h0.assign(size_t(dirs * batch * hidden), C(0));
  if (lstm) {
    if (ctx.has_input(6)) state_to_compute<T, C>(ctx.input(6), attrs.layout, dirs, batch, hidden, in->c0);
    else in->c0.assign(size_t(dirs * batch * hidden), C(0));
    if (ctx.has_input(7)) to_compute<T, C>(ctx.input(7), in->p);
    else in->p.assign(size_t(dirs * 3 * hidden), C(0));
  }
  return Status::Ok();
}

// c[r, j] (+)= sum_p a[r, p] * b[j, p] for RB rows r of a at once, so that each row of b is
// read once per RB rows; kLanes independent partial sums let the compiler vectorise.
template <int RB, typename C>
void matmul_nt_rows(int64_t n, int64_t k, const C* a, int64_t lda, const C* b, int64_t ldb, C* c, int64_t ldc,
                    bool accumulate) {
  constexpr int kLanes = 8;
  for (int64_t j = 0; j < n; ++j) {
    const C* bj = b + j * ldb;
    C lanes[RB][kLanes] = {};
    int64_t p = 0;
    for (; p + kLanes <= k; p += kLanes)
      for (int r = 0; r < RB; ++r)
        for (int l = 0; l < kLanes; ++l) lanes[r][l] += a[r * lda + p + l] * bj[p + l];
    for (int r = 0; r < RB; ++r) {
      C sum = 0;
      for (int l = 0; l < kLanes; ++l) sum += lanes[r][l];
      for (int64_t q = p; q < k; ++q) sum += a[r * lda + q] * bj[q];
      C& out = c[r * ldc + j];
      out = accumulate ? out + sum : sum;
    }
  }
}

// c[i, j] (+)= sum_p a[i, p] * b[j, p] for i < m, j < n: a is [m, k] with row stride lda,
// b is [n, k] with row stride ldb (a weight matrix read as transposed), c has row stride ldc.
template <typename C>
void matmul_nt(int64_t m, int64_t n, int64_t k, const C* a, int64_t lda, const C* b, int64_t ldb, C* c,
               int64_t ldc, bool accumulate) {
  constexpr int64_t kRows = 4;
  const int64_t blocks = (m + kRows - 1) / kRows;
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, n * k));
  parallel_for(blocks, grain, [&](int64_t begin, int64_t end) {
    for (int64_t blk = begin; blk < end; ++blk) {
      const int64_t i = blk * kRows;
      const C* ai = a + i * lda;
      C* ci = c + i * ldc;
      if (i + kRows <= m) {
        matmul_nt_rows<kRows>(n, k, ai, lda, b, ldb, ci, ldc, accumulate);
      } else {
        for (int64_t r = i; r < m; ++r)
          matmul_nt_rows<1>(n, k, a + r * lda, lda, b, ldb, c + r * ldc, ldc, accumulate);
      }
    }
  });
}

// Calls f.template operator()<T>() for the type T of input X (float, double or float16), as
// f = []<typename T>() -> Status { ... }.
template <typename F>
Status dispatch_input_type(const KernelContext& ctx, F&& f) {
  const DataType dtype = ctx.input(0).defined() ? ctx.input(0).dtype() : DataType::kUndefined;
  return dispatch<float, double, Float16>(dtype, std::forward<F>(f));
}

// The input projection of direction d for all time steps at once:
// xw [seq * batch, gates * hidden] = X * W_d^T + Wb_d + Rb_d, with Rb_d left out of the
// columns from rb_end on (GRU's linear_before_reset applies that part inside the recurrence).
template <typename C>
void project_inputs(const Inputs<C>& in, int64_t d, int64_t gates, int64_t rb_end, std::vector<C>& xw) {
  const int64_t width = gates * in.hidden, rows = in.seq * in.batch;
  const C* w = in.w.data() + size_t(d * width * in.input);
  const C* wb = in.b.data() + size_t(d * 2 * width);
  const C* rb = wb + width;
  matmul_nt(rows, width, in.input, in.x.data(), in.input, w, in.input, xw.data(), width, false);
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t j = 0; j < width; ++j) xw[size_t(row * width + j)] += wb[j] + (j < rb_end ? rb[j] : C(0));
}

// Clips x to [-clip, clip] (no-op for an infinite clip).
template <typename C>
C clip_value(C x, float clip) {
  const C c = C(clip);
  return x < -c ? -c : (x > c ? c : x);
}

// The time index that direction `reverse` processes at step `step` for a sequence of
// length `len`, or -1 when the sequence has ended.
inline int64_t time_index(bool reverse, int64_t step, int64_t len) {
  if (step >= len) return -1;
  return reverse ? len - 1 - step : step;
}

// Writes the canonical Y [seq, dirs, batch, hidden] as output 0 in the node's layout.
template <typename T, typename C>
Status write_y(KernelContext& ctx, int64_t layout, int64_t seq, int64_t dirs, int64_t batch, int64_t hidden,
               const std::vector<C>& y) {
  if (!ctx.output_requested(0)) return Status::Ok();
  const Shape shape = layout == 0 ? Shape{seq, dirs, batch, hidden} : Shape{batch, seq, dirs, hidden};
  ONYX_ASSIGN_OR_RETURN(Tensor* out, ctx.allocate_output(0, data_type_of<T>, shape));
  T* o = out->data<T>();
  for (int64_t s = 0; s < seq; ++s)
    for (int64_t d = 0; d < dirs; ++d)
      for (int64_t b = 0; b < batch; ++b) {
        const C* src = &y[size_t(((s * dirs + d) * batch + b) * hidden)];
        const int64_t dst = layout == 0 ? ((s * dirs + d) * batch + b) * hidden : ((b * seq + s) * dirs + d) * hidden;
        for (int64_t h = 0; h < hidden; ++h) o[dst + h] = static_cast<T>(src[h]);
      }
  return Status::Ok();
}

// Writes a canonical state [dirs, batch, hidden] as output `index` in the node's layout.
template <typename T, typename C>
Status write_state(KernelContext& ctx, int index, int64_t layout, int64_t dirs, int64_t batch, int64_t hidden,
                   const std::vector<C>& state) {
  if (!ctx.output_requested(index)) return Status::Ok();
  const Shape shape = layout == 0 ? Shape{dirs, batch, hidden} : Shape{batch, dirs, hidden};
  ONYX_ASSIGN_OR_RETURN(Tensor* out, ctx.allocate_output(index, data_type_of<T>, shape));
  T* o = out->data<T>();
  for (int64_t d = 0; d < dirs; ++d)
    for (int64_t b = 0; b < batch; ++b) {
      const C* src = &state[size_t((d * batch + b) * hidden)];
      const int64_t dst = layout == 0 ? (d * batch + b) * hidden : (b * dirs + d) * hidden;
      for (int64_t h = 0; h < hidden; ++h) o[dst + h] = static_cast<T>(src[h]);
    }
  return Status::Ok();
}

}  // namespace onyx::rnn
