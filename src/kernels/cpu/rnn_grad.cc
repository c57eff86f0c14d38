// RNNGrad (ai.onyx.training): the gradients of an RNN's inputs (H = act(X W + H_prev R + Wb +
// Rb), act Tanh or Relu) by backpropagation through time. Inputs: the RNN's own six (X, W, R, B,
// sequence_lens, initial_h; optional ones may be omitted), then dY and dY_h (each may be
// omitted: zero). Outputs: dX, dW, dR, dB, d_initial_h. The forward runs again to recover the
// states; a batch row past its sequence length neither reads nor changes the state at that
// step. No clip, layout 0 (the gradient rule refuses the rest). float32 and float64.
#include "kernels/rnn_grad_common.h"

namespace onyx {
namespace {

class RnnGradKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(rnn::parse_attributes(info, {"Tanh"}, &attrs_));
    if (attrs_.layout != 0) return not_implemented("RNNGrad with layout 1");
    if (std::isfinite(attrs_.clip)) return not_implemented("RNNGrad with clip");
    for (int64_t d = 0; d < attrs_.num_directions; ++d) {
      const auto kind = attrs_.act(d, 0, 1).kind;
      if (kind != rnn::Activation::Kind::kTanh && kind != rnn::Activation::Kind::kRelu)
        return not_implemented("RNNGrad with an activation other than Tanh or Relu");
    }
    attrs_.trailing_inputs = 2;  // dY, dY_h, checked in compute
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return rnn::dispatch_float_or_double(ctx, "RNNGrad", [&]<typename C>() { return run<C>(ctx); });
  }

 private:
  template <typename C>
  Status run(KernelContext& ctx) const {
    rnn::Inputs<C> in;
    ONYX_RETURN_IF_ERROR((rnn::load_inputs<C, C>(ctx, attrs_, 1, false, &in)));
    const int64_t dirs = attrs_.num_directions, seq = in.seq, batch = in.batch, hidden = in.hidden, input = in.input;
    const int64_t bh = batch * hidden;
    ONYX_ASSIGN_OR_RETURN(const C* dy, rnn::optional_gradient<C>(ctx, 6, seq * dirs * bh, "RNNGrad"));
    ONYX_ASSIGN_OR_RETURN(const C* dy_h, rnn::optional_gradient<C>(ctx, 7, dirs * bh, "RNNGrad"));
    std::vector<C> dx(size_t(seq * batch * input), C(0)), dw(in.w.size(), C(0)), dr(in.r.size(), C(0)),
        db(in.b.size(), C(0)), dh0(in.h0.size(), C(0));
    const size_t per_step = size_t(seq * bh);
    std::vector<C> outs(per_step), h_prev(per_step);
    std::vector<C> xw(size_t(seq * bh)), hr(static_cast<size_t>(bh)), h(static_cast<size_t>(bh)),
        da(static_cast<size_t>(bh)), dh(static_cast<size_t>(bh)), rows_x(size_t(batch * input)),
        rows_h(static_cast<size_t>(bh)), back(size_t(std::max(bh, batch * input)));
    for (int64_t d = 0; d < dirs; ++d) {
      const bool reverse = attrs_.reverse(d);
      const bool relu = attrs_.act(d, 0, 1).kind == rnn::Activation::Kind::kRelu;
      const C* w = in.w.data() + size_t(d * hidden * input);
      const C* r = in.r.data() + size_t(d * hidden * hidden);
      rnn::project_inputs(in, d, 1, hidden, xw);
      std::copy_n(in.h0.data() + size_t(d * bh), bh, h.data());
      for (int64_t step = 0; step < seq; ++step) {  // the forward again
        rnn::matmul_nt(batch, hidden, hidden, h.data(), hidden, r, hidden, hr.data(), hidden, false);
        for (int64_t b = 0; b < batch; ++b) {
          const int64_t t = rnn::time_index(reverse, step, in.seq_lens[size_t(b)]);
          if (t < 0) continue;
          for (int64_t j = 0; j < hidden; ++j) {
            const size_t k = size_t(b * hidden + j), s = size_t(step) * size_t(bh) + k;
            const C pre = xw[size_t((t * batch + b) * hidden + j)] + hr[k];
            const C v = relu ? (pre > C(0) ? pre : C(0)) : std::tanh(pre);
            outs[s] = v;
            h_prev[s] = h[k];
            h[k] = v;
          }
        }
      }
      for (int64_t k = 0; k < bh; ++k) dh[size_t(k)] = dy_h ? dy_h[d * bh + k] : C(0);
      C* dwd = dw.data() + size_t(d * hidden * input);
      C* drd = dr.data() + size_t(d * hidden * hidden);
      C* dwb = db.data() + size_t(d * 2 * hidden);
      for (int64_t step = seq; step-- > 0;) {
        std::fill(da.begin(), da.end(), C(0));
        std::fill(rows_x.begin(), rows_x.end(), C(0));
        std::fill(rows_h.begin(), rows_h.end(), C(0));
        for (int64_t b = 0; b < batch; ++b) {
          const int64_t t = rnn::time_index(reverse, step, in.seq_lens[size_t(b)]);
          if (t < 0) continue;
          std::copy_n(in.x.data() + size_t((t * batch + b) * input), input, rows_x.data() + size_t(b * input));
          for (int64_t j = 0; j < hidden; ++j) {
            const size_t k = size_t(b * hidden + j), s = size_t(step) * size_t(bh) + k;
            const C dh_ = dh[k] + (dy ? dy[((t * dirs + d) * batch + b) * hidden + j] : C(0));
            const C v = outs[s];
            da[k] = relu ? (v > C(0) ? dh_ : C(0)) : dh_ * (C(1) - v * v);
            rows_h[k] = h_prev[s];
          }
        }
        rnn::input_side_gradients(in, reverse, step, hidden, da.data(), rows_x.data(), w, dwd, dwb, dx, back);
        gemm<C>(true, false, hidden, hidden, batch, C(1), da.data(), hidden, rows_h.data(), hidden, C(1), drd, hidden);
        gemm<C>(false, false, batch, hidden, hidden, C(1), da.data(), hidden, r, hidden, C(0), back.data(), hidden);
        rnn::take_state_gradient(in, reverse, step, back.data(), dh.data());
      }
      std::copy_n(dwb, hidden, dwb + hidden);  // Rb's gradient is Wb's
      std::copy_n(dh.data(), bh, dh0.data() + size_t(d * bh));
    }
    return rnn::write_gradients<C>(ctx, "RNNGrad", {{0, &dx, 0, {}}, {1, &dw, 1, {}}, {2, &dr, 2, {}},
                                                    {3, &db, 3, {dirs, 2 * hidden}}, {4, &dh0, 5, {dirs, batch, hidden}}});
  }

  rnn::Attributes attrs_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "RNNGrad", 1, kLatestOpset, RnnGradKernel);

}  // namespace onyx
