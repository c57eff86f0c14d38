// GRU: gated recurrent unit with update (z), reset (r) and hidden (h) gates, in any
// direction, with linear_before_reset, sequence_lens, initial_h, clip and both layouts.
// Outputs Y and Y_h.
#include "kernels/rnn_common.h"

namespace onyx {
namespace {

class GruKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    linear_before_reset_ = info.attr_int("linear_before_reset", 0) != 0;
    return rnn::parse_attributes(info, {"Sigmoid", "Tanh"}, &attrs_);
  }

  Status compute(KernelContext& ctx) const override {
    return rnn::dispatch_input_type(ctx, [&]<typename T>() -> Status { return run<T, compute_t<T>>(ctx); });
  }

 private:
  template <typename T, typename C>
  Status run(KernelContext& ctx) const {
    rnn::Inputs<C> in;
    ONYX_RETURN_IF_ERROR((rnn::load_inputs<T, C>(ctx, attrs_, 3, false, &in)));
    const int64_t dirs = attrs_.num_directions, seq = in.seq, batch = in.batch, hidden = in.hidden;
    const int64_t g3 = 3 * hidden;
    const float clip = attrs_.clip;
    std::vector<C> y(size_t(seq * dirs * batch * hidden), C(0));
    std::vector<C> y_h(size_t(dirs * batch * hidden));
    std::vector<C> xw(size_t(seq * batch * g3)), hr(size_t(batch * g3));
    std::vector<C> z(size_t(batch * hidden)), rh(size_t(batch * hidden));
    for (int64_t d = 0; d < dirs; ++d) {
      const bool reverse = attrs_.reverse(d);
      const rnn::Activation& f = attrs_.act(d, 0, 2);
      const rnn::Activation& g = attrs_.act(d, 1, 2);
      const C* r = in.r.data() + size_t(d * g3 * hidden);
      const C* rbh = in.b.data() + size_t(d * 2 * g3 + g3 + 2 * hidden);
      // xw = X*W^T + Wb + Rb, leaving out Rbh when it is applied inside the reset product.
      rnn::project_inputs(in, d, 3, linear_before_reset_ ? 2 * hidden : g3, xw);
      C* h = y_h.data() + size_t(d * batch * hidden);
      std::copy_n(in.h0.data() + size_t(d * batch * hidden), batch * hidden, h);
      for (int64_t step = 0; step < seq; ++step) {
        if (linear_before_reset_) {
          rnn::matmul_nt(batch, g3, hidden, h, hidden, r, hidden, hr.data(), g3, false);
        } else {
          // z and r first; the hidden gate needs (r (.) H) * Rh^T.
          rnn::matmul_nt(batch, 2 * hidden, hidden, h, hidden, r, hidden, hr.data(), g3, false);
        }
        for (int64_t b = 0; b < batch; ++b) {
          const int64_t t = rnn::time_index(reverse, step, in.seq_lens[size_t(b)]);
          const C* xr = xw.data() + size_t(((t < 0 ? 0 : t) * batch + b) * g3);
          const C* hrb = hr.data() + size_t(b * g3);
          for (int64_t j = 0; j < hidden; ++j) {
            z[size_t(b * hidden + j)] = f(rnn::clip_value(xr[j] + hrb[j], clip));
            const C rg = f(rnn::clip_value(xr[hidden + j] + hrb[hidden + j], clip));
            // With linear_before_reset rh holds r itself; otherwise r (.) H.
            rh[size_t(b * hidden + j)] = linear_before_reset_ ? rg : rg * h[b * hidden + j];
          }
        }
        if (!linear_before_reset_ && batch > 0)  // batch 0: the buffers are empty (null)
          rnn::matmul_nt(batch, hidden, hidden, rh.data(), hidden, r + 2 * hidden * hidden, hidden,
                         hr.data() + 2 * hidden, g3, false);
        for (int64_t b = 0; b < batch; ++b) {
          const int64_t t = rnn::time_index(reverse, step, in.seq_lens[size_t(b)]);
          if (t < 0) continue;
          const C* xr = xw.data() + size_t((t * batch + b) * g3);
          const C* hh = hr.data() + size_t(b * g3 + 2 * hidden);
          C* yt = y.data() + size_t(((t * dirs + d) * batch + b) * hidden);
          for (int64_t j = 0; j < hidden; ++j) {
            const size_t k = size_t(b * hidden + j);
            const C pre = linear_before_reset_ ? xr[2 * hidden + j] + rh[k] * (hh[j] + rbh[j])
                                               : xr[2 * hidden + j] + hh[j];
            const C candidate = g(rnn::clip_value(pre, clip));
            const C v = (C(1) - z[k]) * candidate + z[k] * h[k];
            h[k] = v;
            yt[j] = v;
          }
        }
      }
    }
    ONYX_RETURN_IF_ERROR((rnn::write_y<T, C>(ctx, attrs_.layout, seq, dirs, batch, hidden, y)));
    return rnn::write_state<T, C>(ctx, 1, attrs_.layout, dirs, batch, hidden, y_h);
  }

  rnn::Attributes attrs_;
  bool linear_before_reset_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "GRU", 1, kLatestOpset, GruKernel);

}  // namespace onyx
