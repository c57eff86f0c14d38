// GRUGrad (ai.onyx.training): the gradients of a GRU's inputs by backpropagation through time.
// Inputs: the GRU's own six (X, W, R, B, sequence_lens, initial_h; optional ones may be
// omitted), then dY and dY_h (each may be omitted: zero). Outputs: dX, dW, dR, dB,
// d_initial_h. The forward runs again to recover the gates (gates z, r, h as ONNX orders them;
// H = (1 - z) h~ + z H_prev, h~ = tanh(X Wh + r (H_prev Rh + Rbh) + Wbh) with
// linear_before_reset, tanh(X Wh + (r H_prev) Rh + Rbh + Wbh) without), then each direction is
// walked back in time. A batch row past its sequence length neither reads nor changes the
// state at that step. Default activations only (sigmoid, tanh), no clip, layout 0 (the gradient
// rule refuses the rest). float32 and float64.
#include "kernels/rnn_grad_common.h"

namespace onyx {
namespace {

class GruGradKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    linear_before_reset_ = info.attr_int("linear_before_reset", 0) != 0;
    ONYX_RETURN_IF_ERROR(rnn::parse_attributes(info, {"Sigmoid", "Tanh"}, &attrs_));
    if (attrs_.layout != 0) return not_implemented("GRUGrad with layout 1");
    if (std::isfinite(attrs_.clip)) return not_implemented("GRUGrad with clip");
    for (int64_t d = 0; d < attrs_.num_directions; ++d)
      if (attrs_.act(d, 0, 2).kind != rnn::Activation::Kind::kSigmoid ||
          attrs_.act(d, 1, 2).kind != rnn::Activation::Kind::kTanh)
        return not_implemented("GRUGrad with activations other than Sigmoid, Tanh");
    attrs_.trailing_inputs = 2;  // dY, dY_h, checked in compute
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return rnn::dispatch_float_or_double(ctx, "GRUGrad", [&]<typename C>() { return run<C>(ctx); });
  }

 private:
  template <typename C>
  Status run(KernelContext& ctx) const {
    rnn::Inputs<C> in;
    ONYX_RETURN_IF_ERROR((rnn::load_inputs<C, C>(ctx, attrs_, 3, false, &in)));
    const int64_t dirs = attrs_.num_directions, seq = in.seq, batch = in.batch, hidden = in.hidden, input = in.input;
    const int64_t g3 = 3 * hidden, bh = batch * hidden;
    const bool lbr = linear_before_reset_;
    ONYX_ASSIGN_OR_RETURN(const C* dy, rnn::optional_gradient<C>(ctx, 6, seq * dirs * bh, "GRUGrad"));
    ONYX_ASSIGN_OR_RETURN(const C* dy_h, rnn::optional_gradient<C>(ctx, 7, dirs * bh, "GRUGrad"));
    std::vector<C> dx(size_t(seq * batch * input), C(0)), dw(in.w.size(), C(0)), dr(in.r.size(), C(0)),
        db(in.b.size(), C(0)), dh0(in.h0.size(), C(0));
    // Per step: z, r, the candidate h~, the state read, and what the hidden gate multiplied by
    // Rh: H_prev Rh + Rbh (linear_before_reset) or r H_prev (not).
    const size_t per_step = size_t(seq * bh);
    std::vector<C> zs(per_step), rs(per_step), cand(per_step), h_prev(per_step), inner(per_step);
    std::vector<C> xw(size_t(seq * batch * g3)), hr(size_t(batch * g3)), h(static_cast<size_t>(bh)),
        rh(static_cast<size_t>(bh)), hh(static_cast<size_t>(bh));
    std::vector<C> da(size_t(batch * g3)), dn(size_t(batch * g3)), dh(static_cast<size_t>(bh)),
        rows_x(size_t(batch * input)), rows_h(static_cast<size_t>(bh)), rows_inner(static_cast<size_t>(bh)),
        back(size_t(std::max(bh, batch * input))), drh(static_cast<size_t>(bh));
    for (int64_t d = 0; d < dirs; ++d) {
      const bool reverse = attrs_.reverse(d);
      const C* w = in.w.data() + size_t(d * g3 * input);
      const C* r = in.r.data() + size_t(d * g3 * hidden);
      const C* r_h = r + 2 * hidden * hidden;
      const C* rbh = in.b.data() + size_t(d * 2 * g3 + g3 + 2 * hidden);
      rnn::project_inputs(in, d, 3, lbr ? 2 * hidden : g3, xw);
      std::copy_n(in.h0.data() + size_t(d * bh), bh, h.data());
      for (int64_t step = 0; step < seq; ++step) {  // the forward again
        rnn::matmul_nt(batch, lbr ? g3 : 2 * hidden, hidden, h.data(), hidden, r, hidden, hr.data(), g3, false);
        for (int64_t b = 0; b < batch; ++b) {
          const int64_t t = rnn::time_index(reverse, step, in.seq_lens[size_t(b)]);
          const C* xr = xw.data() + size_t(((t < 0 ? 0 : t) * batch + b) * g3);
          for (int64_t j = 0; j < hidden; ++j) {
            const size_t k = size_t(b * hidden + j);
            const C rg = rnn::sigmoid(xr[hidden + j] + hr[size_t(b * g3 + hidden + j)]);
            rh[k] = rg * h[k];
            rs[size_t(step) * size_t(bh) + k] = rg;
          }
        }
        if (!lbr && batch > 0) rnn::matmul_nt(batch, hidden, hidden, rh.data(), hidden, r_h, hidden, hh.data(), hidden, false);
        for (int64_t b = 0; b < batch; ++b) {
          const int64_t t = rnn::time_index(reverse, step, in.seq_lens[size_t(b)]);
          if (t < 0) continue;
          const C* xr = xw.data() + size_t((t * batch + b) * g3);
          const C* hrb = hr.data() + size_t(b * g3);
          for (int64_t j = 0; j < hidden; ++j) {
            const size_t k = size_t(b * hidden + j), s = size_t(step) * size_t(bh) + k;
            const C z = rnn::sigmoid(xr[j] + hrb[j]);
            const C in_h = lbr ? hrb[2 * hidden + j] + rbh[j] : rh[k];
            const C pre = lbr ? xr[2 * hidden + j] + rs[s] * in_h : xr[2 * hidden + j] + hh[k];
            const C c = std::tanh(pre);
            zs[s] = z, cand[s] = c, h_prev[s] = h[k], inner[s] = in_h;
            h[k] = (C(1) - z) * c + z * h[k];
          }
        }
      }
      for (int64_t k = 0; k < bh; ++k) dh[size_t(k)] = dy_h ? dy_h[d * bh + k] : C(0);
      C* dwd = dw.data() + size_t(d * g3 * input);
      C* drd = dr.data() + size_t(d * g3 * hidden);
      C* dwb = db.data() + size_t(d * 2 * g3);
      C* drb = dwb + g3;
      for (int64_t step = seq; step-- > 0;) {
        std::fill(da.begin(), da.end(), C(0));
        std::fill(dn.begin(), dn.end(), C(0));
        std::fill(rows_x.begin(), rows_x.end(), C(0));
        std::fill(rows_h.begin(), rows_h.end(), C(0));
        std::fill(rows_inner.begin(), rows_inner.end(), C(0));
        std::vector<C> direct(static_cast<size_t>(bh), C(0));
        for (int64_t b = 0; b < batch; ++b) {  // everything but the reset gate (which, without
          const int64_t t = rnn::time_index(reverse, step, in.seq_lens[size_t(b)]);  // lbr, needs drh)
          if (t < 0) continue;
          std::copy_n(in.x.data() + size_t((t * batch + b) * input), input, rows_x.data() + size_t(b * input));
          for (int64_t j = 0; j < hidden; ++j) {
            const size_t k = size_t(b * hidden + j), s = size_t(step) * size_t(bh) + k;
            const C dh_ = dh[k] + (dy ? dy[((t * dirs + d) * batch + b) * hidden + j] : C(0));
            const C z = zs[s], c = cand[s];
            da[size_t(b * g3 + j)] = dh_ * (h_prev[s] - c) * z * (C(1) - z);
            da[size_t(b * g3 + 2 * hidden + j)] = dh_ * (C(1) - z) * (C(1) - c * c);
            direct[k] = dh_ * z;
            rows_h[k] = h_prev[s];
            rows_inner[k] = inner[s];
          }
        }
        // The hidden gate's product with Rh, read back: with lbr dn = dpre * r and the reset
        // gate sees dpre * (H_prev Rh + Rbh); without, d(r H_prev) = dpre Rh.
        if (!lbr) gemm<C>(false, false, batch, hidden, hidden, C(1), da.data() + 2 * hidden, g3, r_h, hidden, C(0),
                          drh.data(), hidden);
        for (int64_t b = 0; b < batch; ++b) {
          if (rnn::time_index(reverse, step, in.seq_lens[size_t(b)]) < 0) continue;
          for (int64_t j = 0; j < hidden; ++j) {
            const size_t k = size_t(b * hidden + j), s = size_t(step) * size_t(bh) + k;
            const C rg = rs[s], dpre = da[size_t(b * g3 + 2 * hidden + j)];
            const C d_r = lbr ? dpre * inner[s] : drh[k] * h_prev[s];
            da[size_t(b * g3 + hidden + j)] = d_r * rg * (C(1) - rg);
            if (lbr) dn[size_t(b * g3 + 2 * hidden + j)] = dpre * rg;
            else direct[k] += drh[k] * rg;
          }
        }
        // dn holds, per gate, what multiplied R: z and r as in da; h per the mode above.
        for (int64_t b = 0; b < batch; ++b)
          for (int64_t q = 0; q < 2 * hidden; ++q) dn[size_t(b * g3 + q)] = da[size_t(b * g3 + q)];
        if (!lbr)
          for (int64_t b = 0; b < batch; ++b)
            for (int64_t j = 0; j < hidden; ++j)
              dn[size_t(b * g3 + 2 * hidden + j)] = da[size_t(b * g3 + 2 * hidden + j)];
        rnn::input_side_gradients(in, reverse, step, g3, da.data(), rows_x.data(), w, dwd, dwb, dx, back);
        gemm<C>(true, false, 2 * hidden, hidden, batch, C(1), dn.data(), g3, rows_h.data(), hidden, C(1), drd, hidden);
        gemm<C>(true, false, hidden, hidden, batch, C(1), dn.data() + 2 * hidden, g3,
                lbr ? rows_h.data() : rows_inner.data(), hidden, C(1), drd + 2 * hidden * hidden, hidden);
        for (int64_t b = 0; b < batch; ++b)
          for (int64_t q = 0; q < g3; ++q) drb[q] += dn[size_t(b * g3 + q)];
        // dH_prev = dh z (+ drh r without lbr) + dz' Rz + dr' Rr (+ dn Rh with lbr).
        gemm<C>(false, false, batch, hidden, lbr ? g3 : 2 * hidden, C(1), dn.data(), g3, r, hidden, C(0), back.data(),
                hidden);
        for (int64_t b = 0; b < batch; ++b) {
          if (rnn::time_index(reverse, step, in.seq_lens[size_t(b)]) < 0) continue;
          for (int64_t j = 0; j < hidden; ++j) {
            const size_t k = size_t(b * hidden + j);
            dh[k] = back[k] + direct[k];
          }
        }
      }
      std::copy_n(dh.data(), bh, dh0.data() + size_t(d * bh));
    }
    return rnn::write_gradients<C>(ctx, "GRUGrad", {{0, &dx, 0, {}}, {1, &dw, 1, {}}, {2, &dr, 2, {}},
                                                    {3, &db, 3, {dirs, 2 * g3}}, {4, &dh0, 5, {dirs, batch, hidden}}});
  }

  rnn::Attributes attrs_;
  bool linear_before_reset_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "GRUGrad", 1, kLatestOpset, GruGradKernel);

}  // namespace onyx
