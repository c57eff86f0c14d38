// LSTM: long short-term memory layer with input (i), output (o), forget (f) and cell (c)
// gates, in any direction, with peepholes, input_forget, sequence_lens, initial states,
// clip and both layouts. Outputs Y, Y_h and Y_c.
#include "kernels/rnn_common.h"

namespace onyx {
namespace {

class LstmKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    input_forget_ = info.attr_int("input_forget", 0) != 0;
    return rnn::parse_attributes(info, {"Sigmoid", "Tanh", "Tanh"}, &attrs_);
  }

  Status compute(KernelContext& ctx) const override {
    return rnn::dispatch_input_type(ctx, [&]<typename T>() -> Status { return run<T, compute_t<T>>(ctx); });
  }

 private:
  template <typename T, typename C>
  Status run(KernelContext& ctx) const {
    rnn::Inputs<C> in;
    ONYX_RETURN_IF_ERROR((rnn::load_inputs<T, C>(ctx, attrs_, 4, true, &in)));
    const int64_t dirs = attrs_.num_directions, seq = in.seq, batch = in.batch, hidden = in.hidden;
    const int64_t g4 = 4 * hidden;
    const float clip = attrs_.clip;
    std::vector<C> y(size_t(seq * dirs * batch * hidden), C(0));
    std::vector<C> y_h(size_t(dirs * batch * hidden)), y_c(size_t(dirs * batch * hidden));
    std::vector<C> xw(size_t(seq * batch * g4)), hr(size_t(batch * g4));
    for (int64_t d = 0; d < dirs; ++d) {
      const bool reverse = attrs_.reverse(d);
      const rnn::Activation& f = attrs_.act(d, 0, 3);
      const rnn::Activation& g = attrs_.act(d, 1, 3);
      const rnn::Activation& hact = attrs_.act(d, 2, 3);
      const C* r = in.r.data() + size_t(d * g4 * hidden);
      const C* p_i = in.p.data() + size_t(d * 3 * hidden);
      const C* p_o = p_i + hidden;
      const C* p_f = p_o + hidden;
      rnn::project_inputs(in, d, 4, g4, xw);
      C* h = y_h.data() + size_t(d * batch * hidden);
      C* c = y_c.data() + size_t(d * batch * hidden);
      std::copy_n(in.h0.data() + size_t(d * batch * hidden), batch * hidden, h);
      std::copy_n(in.c0.data() + size_t(d * batch * hidden), batch * hidden, c);
      for (int64_t step = 0; step < seq; ++step) {
        rnn::matmul_nt(batch, g4, hidden, h, hidden, r, hidden, hr.data(), g4, false);
        for (int64_t b = 0; b < batch; ++b) {
          const int64_t t = rnn::time_index(reverse, step, in.seq_lens[size_t(b)]);
          if (t < 0) continue;
          const C* xr = xw.data() + size_t((t * batch + b) * g4);
          const C* hrb = hr.data() + size_t(b * g4);
          C* yt = y.data() + size_t(((t * dirs + d) * batch + b) * hidden);
          for (int64_t j = 0; j < hidden; ++j) {
            const size_t k = size_t(b * hidden + j);
            const C c_prev = c[k];
            const C ig = f(rnn::clip_value(xr[j] + hrb[j] + p_i[j] * c_prev, clip));
            const C fg = input_forget_
                             ? C(1) - ig
                             : f(rnn::clip_value(xr[2 * hidden + j] + hrb[2 * hidden + j] + p_f[j] * c_prev, clip));
            const C cg = g(rnn::clip_value(xr[3 * hidden + j] + hrb[3 * hidden + j], clip));
            const C c_new = fg * c_prev + ig * cg;
            const C og = f(rnn::clip_value(xr[hidden + j] + hrb[hidden + j] + p_o[j] * c_new, clip));
            const C h_new = og * hact(c_new);
            c[k] = c_new;
            h[k] = h_new;
            yt[j] = h_new;
          }
        }
      }
    }
    ONYX_RETURN_IF_ERROR((rnn::write_y<T, C>(ctx, attrs_.layout, seq, dirs, batch, hidden, y)));
    ONYX_RETURN_IF_ERROR((rnn::write_state<T, C>(ctx, 1, attrs_.layout, dirs, batch, hidden, y_h)));
    return rnn::write_state<T, C>(ctx, 2, attrs_.layout, dirs, batch, hidden, y_c);
  }

  rnn::Attributes attrs_;
  bool input_forget_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "LSTM", 1, kLatestOpset, LstmKernel);

}  // namespace onyx
