// LSTMGrad (ai.onyx.training): the gradients of an LSTM's inputs by backpropagation through
// time. Inputs: the LSTM's own eight (X, W, R, B, sequence_lens, initial_h, initial_c, P; the
// optional ones may be omitted), then dY, dY_h, dY_c (each may be omitted: zero). Outputs:
// dX, dW, dR, dB, d_initial_h, d_initial_c, dP, in the LSTM's shapes. The forward is run again
// to recover the gates (the LSTM op keeps none), then each direction is walked back in time:
// with a the pre-activations of the gates i, o, f (sigmoid) and c (tanh), C the cell and H the
// hidden state, from dH (the next step's, plus dY) and dC:
//   do = dH tanh(C_t);  dC_t += dH o (1 - tanh^2 C_t) + do' P_o;   (do' = do o (1 - o))
//   di' = dC_t c i (1 - i);  df' = dC_t C_{t-1} f (1 - f);  dc' = dC_t i (1 - c^2);
//   dC_{t-1} = dC_t f + di' P_i + df' P_f;  dH_{t-1} = da R;  dX_t = da W;
//   dW += da^T X_t;  dR += da^T H_{t-1};  dWb = dRb += sum da;  dP += the peepholes' terms.
// A batch row past its sequence length neither reads nor changes the state at that step.
// Default activations only (sigmoid, tanh, tanh), no clip, no input_forget, layout 0 (the
// gradient rule refuses the rest). float32 and float64.
#include "kernels/rnn_grad_common.h"

namespace onyx {
namespace {

class LstmGradKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    if (info.attr_int("input_forget", 0) != 0) return not_implemented("LSTMGrad with input_forget");
    ONYX_RETURN_IF_ERROR(rnn::parse_attributes(info, {"Sigmoid", "Tanh", "Tanh"}, &attrs_));
    if (attrs_.layout != 0) return not_implemented("LSTMGrad with layout 1");
    attrs_.trailing_inputs = 3;  // dY, dY_h, dY_c, checked in compute
    if (std::isfinite(attrs_.clip)) return not_implemented("LSTMGrad with clip");
    for (int64_t d = 0; d < attrs_.num_directions; ++d)
      if (attrs_.act(d, 0, 3).kind != rnn::Activation::Kind::kSigmoid ||
          attrs_.act(d, 1, 3).kind != rnn::Activation::Kind::kTanh ||
          attrs_.act(d, 2, 3).kind != rnn::Activation::Kind::kTanh)
        return not_implemented("LSTMGrad with activations other than Sigmoid, Tanh, Tanh");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return rnn::dispatch_float_or_double(ctx, "LSTMGrad", [&]<typename C>() { return run<C>(ctx); });
  }

 private:
  template <typename C>
  Status run(KernelContext& ctx) const {
    rnn::Inputs<C> in;
    ONYX_RETURN_IF_ERROR((rnn::load_inputs<C, C>(ctx, attrs_, 4, true, &in)));
    const int64_t dirs = attrs_.num_directions, seq = in.seq, batch = in.batch, hidden = in.hidden, input = in.input;
    const int64_t g4 = 4 * hidden, bh = batch * hidden;
    ONYX_ASSIGN_OR_RETURN(const C* dy, rnn::optional_gradient<C>(ctx, 8, seq * dirs * bh, "LSTMGrad"));
    ONYX_ASSIGN_OR_RETURN(const C* dy_h, rnn::optional_gradient<C>(ctx, 9, dirs * bh, "LSTMGrad"));
    ONYX_ASSIGN_OR_RETURN(const C* dy_c, rnn::optional_gradient<C>(ctx, 10, dirs * bh, "LSTMGrad"));
    std::vector<C> dx(size_t(seq * batch * input), C(0)), dw(in.w.size(), C(0)), dr(in.r.size(), C(0)),
        db(in.b.size(), C(0)), dh0(in.h0.size(), C(0)), dc0(in.c0.size(), C(0)), dp(in.p.size(), C(0));
    // Per step of one direction: the gates after their activations, the cell before and after,
    // tanh of the new cell and the hidden state read.
    const size_t per_step = size_t(seq * bh);
    std::vector<C> ig(per_step), og(per_step), fg(per_step), cg(per_step), c_prev(per_step), c_new(per_step),
        tanh_c(per_step), h_prev(per_step);
    std::vector<C> xw(size_t(seq * batch * g4)), hr(size_t(batch * g4)), h(static_cast<size_t>(bh)), c(static_cast<size_t>(bh));
    std::vector<C> da(size_t(batch * g4)), dh(static_cast<size_t>(bh)), dc(static_cast<size_t>(bh)), rows_x(size_t(batch * input)),
        rows_h(static_cast<size_t>(bh)), back(size_t(std::max(bh, batch * input)));
    for (int64_t d = 0; d < dirs; ++d) {
      const bool reverse = attrs_.reverse(d);
      const C* w = in.w.data() + size_t(d * g4 * input);
      const C* r = in.r.data() + size_t(d * g4 * hidden);
      const C* p_i = in.p.data() + size_t(d * 3 * hidden);
      const C* p_o = p_i + hidden;
      const C* p_f = p_o + hidden;
      rnn::project_inputs(in, d, 4, g4, xw);
      std::copy_n(in.h0.data() + size_t(d * bh), bh, h.data());
      std::copy_n(in.c0.data() + size_t(d * bh), bh, c.data());
      for (int64_t step = 0; step < seq; ++step) {  // the forward again, keeping what the backward reads
        rnn::matmul_nt(batch, g4, hidden, h.data(), hidden, r, hidden, hr.data(), g4, false);
        for (int64_t b = 0; b < batch; ++b) {
          const int64_t t = rnn::time_index(reverse, step, in.seq_lens[size_t(b)]);
          if (t < 0) continue;
          const C* xr = xw.data() + size_t((t * batch + b) * g4);
          const C* hrb = hr.data() + size_t(b * g4);
          for (int64_t j = 0; j < hidden; ++j) {
            const size_t k = size_t(b * hidden + j), s = size_t(step) * size_t(bh) + k;
            const C cp = c[k];
            const C i_ = rnn::sigmoid(xr[j] + hrb[j] + p_i[j] * cp);
            const C f_ = rnn::sigmoid(xr[2 * hidden + j] + hrb[2 * hidden + j] + p_f[j] * cp);
            const C g_ = std::tanh(xr[3 * hidden + j] + hrb[3 * hidden + j]);
            const C cn = f_ * cp + i_ * g_;
            const C o_ = rnn::sigmoid(xr[hidden + j] + hrb[hidden + j] + p_o[j] * cn);
            const C tc = std::tanh(cn);
            ig[s] = i_, fg[s] = f_, cg[s] = g_, og[s] = o_, c_prev[s] = cp, c_new[s] = cn, tanh_c[s] = tc;
            h_prev[s] = h[k];
            c[k] = cn;
            h[k] = o_ * tc;
          }
        }
      }
      for (int64_t k = 0; k < bh; ++k) {
        dh[size_t(k)] = dy_h ? dy_h[d * bh + k] : C(0);
        dc[size_t(k)] = dy_c ? dy_c[d * bh + k] : C(0);
      }
      C* dwd = dw.data() + size_t(d * g4 * input);
      C* drd = dr.data() + size_t(d * g4 * hidden);
      C* dwb = db.data() + size_t(d * 2 * g4);
      C* dpi = dp.data() + size_t(d * 3 * hidden);
      C* dpo = dpi + hidden;
      C* dpf = dpo + hidden;
      for (int64_t step = seq; step-- > 0;) {
        std::fill(da.begin(), da.end(), C(0));
        std::fill(rows_x.begin(), rows_x.end(), C(0));
        std::fill(rows_h.begin(), rows_h.end(), C(0));
        for (int64_t b = 0; b < batch; ++b) {
          const int64_t t = rnn::time_index(reverse, step, in.seq_lens[size_t(b)]);
          if (t < 0) continue;  // past this row's length: the state passes through
          std::copy_n(in.x.data() + size_t((t * batch + b) * input), input, rows_x.data() + size_t(b * input));
          C* dab = da.data() + size_t(b * g4);
          for (int64_t j = 0; j < hidden; ++j) {
            const size_t k = size_t(b * hidden + j), s = size_t(step) * size_t(bh) + k;
            const C dh_ = dh[k] + (dy ? dy[((t * dirs + d) * batch + b) * hidden + j] : C(0));
            const C o_ = og[s], tc = tanh_c[s], i_ = ig[s], f_ = fg[s], g_ = cg[s];
            const C do_ = dh_ * tc * o_ * (C(1) - o_);
            const C dct = dc[k] + dh_ * o_ * (C(1) - tc * tc) + do_ * p_o[j];
            const C di_ = dct * g_ * i_ * (C(1) - i_);
            const C df_ = dct * c_prev[s] * f_ * (C(1) - f_);
            const C dg_ = dct * i_ * (C(1) - g_ * g_);
            dab[j] = di_, dab[hidden + j] = do_, dab[2 * hidden + j] = df_, dab[3 * hidden + j] = dg_;
            dc[k] = dct * f_ + di_ * p_i[j] + df_ * p_f[j];
            dpi[j] += di_ * c_prev[s];
            dpf[j] += df_ * c_prev[s];
            dpo[j] += do_ * c_new[s];
            rows_h[k] = h_prev[s];
          }
        }
        // Weight sums over the batch, then the state and input gradients through W and R.
        rnn::input_side_gradients(in, reverse, step, g4, da.data(), rows_x.data(), w, dwd, dwb, dx, back);
        gemm<C>(true, false, g4, hidden, batch, C(1), da.data(), g4, rows_h.data(), hidden, C(1), drd, hidden);
        gemm<C>(false, false, batch, hidden, g4, C(1), da.data(), g4, r, hidden, C(0), back.data(), hidden);
        rnn::take_state_gradient(in, reverse, step, back.data(), dh.data());
      }
      std::copy_n(dwb, g4, dwb + g4);  // Rb's gradient is Wb's
      std::copy_n(dh.data(), bh, dh0.data() + size_t(d * bh));
      std::copy_n(dc.data(), bh, dc0.data() + size_t(d * bh));
    }
    const Shape state{dirs, batch, hidden};
    return rnn::write_gradients<C>(ctx, "LSTMGrad", {{0, &dx, 0, {}}, {1, &dw, 1, {}}, {2, &dr, 2, {}},
                                                     {3, &db, 3, {dirs, 2 * g4}}, {4, &dh0, 5, state},
                                                     {5, &dc0, 6, state}, {6, &dp, 7, {dirs, 3 * hidden}}});
  }

  rnn::Attributes attrs_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "LSTMGrad", 1, kLatestOpset, LstmGradKernel);

}  // namespace onyx
