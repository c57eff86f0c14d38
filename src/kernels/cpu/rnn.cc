// RNN: a simple recurrent layer, Ht = f(Xt*W^T + Ht-1*R^T + Wb + Rb), in any direction,
// with sequence_lens, initial_h, clip and both layouts. Outputs Y and Y_h.
#include "kernels/rnn_common.h"

namespace onyx {
namespace {

class RnnKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    return rnn::parse_attributes(info, {"Tanh"}, &attrs_);
  }

  Status compute(KernelContext& ctx) const override {
    return rnn::dispatch_input_type(ctx, [&]<typename T>() -> Status { return run<T, compute_t<T>>(ctx); });
  }

 private:
  template <typename T, typename C>
  Status run(KernelContext& ctx) const {
    rnn::Inputs<C> in;
    ONYX_RETURN_IF_ERROR((rnn::load_inputs<T, C>(ctx, attrs_, 1, false, &in)));
    const int64_t dirs = attrs_.num_directions, seq = in.seq, batch = in.batch, hidden = in.hidden;
    std::vector<C> y(size_t(seq * dirs * batch * hidden), C(0));
    std::vector<C> y_h(size_t(dirs * batch * hidden));
    std::vector<C> xw(size_t(seq * batch * hidden)), hr(size_t(batch * hidden));
    for (int64_t d = 0; d < dirs; ++d) {
      const bool reverse = attrs_.reverse(d);
      const rnn::Activation& f = attrs_.act(d, 0, 1);
      const C* r = in.r.data() + size_t(d * hidden * hidden);
      rnn::project_inputs(in, d, 1, hidden, xw);
      C* h = y_h.data() + size_t(d * batch * hidden);
      std::copy_n(in.h0.data() + size_t(d * batch * hidden), batch * hidden, h);
      for (int64_t step = 0; step < seq; ++step) {
        rnn::matmul_nt(batch, hidden, hidden, h, hidden, r, hidden, hr.data(), hidden, false);
        for (int64_t b = 0; b < batch; ++b) {
          const int64_t t = rnn::time_index(reverse, step, in.seq_lens[size_t(b)]);
          if (t < 0) continue;
          const C* xr = xw.data() + size_t((t * batch + b) * hidden);
          C* yt = y.data() + size_t(((t * dirs + d) * batch + b) * hidden);
          for (int64_t j = 0; j < hidden; ++j) {
            const C v = f(rnn::clip_value(xr[j] + hr[size_t(b * hidden + j)], attrs_.clip));
            h[b * hidden + j] = v;
            yt[j] = v;
          }
        }
      }
    }
    ONYX_RETURN_IF_ERROR((rnn::write_y<T, C>(ctx, attrs_.layout, seq, dirs, batch, hidden, y)));
    return rnn::write_state<T, C>(ctx, 1, attrs_.layout, dirs, batch, hidden, y_h);
  }

  rnn::Attributes attrs_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "RNN", 1, kLatestOpset, RnnKernel);

}  // namespace onyx
