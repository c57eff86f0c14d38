// STFT: short-time Fourier transform of real ([batch, length, 1]) or complex ([batch,
// length, 2]) signals: frames of frame_length samples every frame_step samples, each
// multiplied by the optional window and transformed; onesided (default) keeps n/2+1 bins.
// Output [batch, frames, bins, 2]. Computed in double precision.
#include <algorithm>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/fft_common.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class StftKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    onesided_ = info.attr_int("onesided", 1) != 0;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& signal = ctx.input(0);
    const Tensor& step_t = ctx.input(1);
    if (!signal.defined() || signal.rank() != 3 || (signal.dim(2) != 1 && signal.dim(2) != 2))
      return invalid_argument("STFT signal must be [batch, length, 1 or 2], got ", signal.describe());
    if (!step_t.defined() || !is_integer_type(step_t.dtype()) || step_t.numel() != 1)
      return invalid_argument("frame_step must be an integer scalar, got ", step_t.describe());
    const int64_t step = step_t.get_int64(0);
    if (step <= 0) return invalid_argument("frame_step must be positive, got ", step);

    const Tensor* window = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    if (window && (!window->defined() || window->rank() != 1 || window->dtype() != signal.dtype()))
      return invalid_argument("window must be a 1-D tensor of the signal's type, got ", window->describe());
    int64_t n = window ? window->dim(0) : -1;
    if (ctx.has_input(3)) {
      const Tensor& len_t = ctx.input(3);
      if (!len_t.defined() || !is_integer_type(len_t.dtype()) || len_t.numel() != 1)
        return invalid_argument("frame_length must be an integer scalar, got ", len_t.describe());
      const int64_t len = len_t.get_int64(0);
      if (window && len != n)
        return invalid_argument("frame_length ", len, " differs from the window length ", n);
      n = len;
    }
    if (n < 0) return invalid_argument("STFT needs a window or a frame_length");
    const int64_t batch = signal.dim(0), length = signal.dim(1), comp = signal.dim(2);
    if (n <= 0 || n > length)
      return invalid_argument("frame length ", n, " must be in [1, signal length ", length, "]");
    const int64_t frames = (length - n) / step + 1;
    const int64_t bins = onesided_ ? n / 2 + 1 : n;
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, signal.dtype(), {batch, frames, bins, 2}));
    if (y->numel() == 0) return Status::Ok();

    const fft::Plan plan(n, false);
    return dispatch<ONYX_FLOAT_TYPES>(signal.dtype(), [&]<typename T>() -> Status {
      const T* in = signal.data<T>();
      const T* win = window ? window->data<T>() : nullptr;
      T* out = y->data<T>();
      parallel_for(batch * frames, std::max<int64_t>(1, 4096 / n), [&](int64_t begin, int64_t end) {
        std::vector<fft::Complex> buf(static_cast<size_t>(n)), scratch;
        for (int64_t item = begin; item < end; ++item) {
          const int64_t b = item / frames, f = item % frames;
          for (int64_t j = 0; j < n; ++j) {
            const T* v = in + (b * length + f * step + j) * comp;
            const double w = win ? double(compute_t<T>(win[j])) : 1.0;
            buf[size_t(j)] = fft::Complex(double(compute_t<T>(v[0])) * w,
                                          comp == 2 ? double(compute_t<T>(v[1])) * w : 0.0);
          }
          plan.run(buf.data(), buf.data(), scratch);
          T* dst = out + item * bins * 2;
          for (int64_t k = 0; k < bins; ++k) {
            dst[2 * k] = static_cast<T>(static_cast<compute_t<T>>(buf[size_t(k)].real()));
            dst[2 * k + 1] = static_cast<T>(static_cast<compute_t<T>>(buf[size_t(k)].imag()));
          }
        }
      });
      return Status::Ok();
    });
  }

 private:
  bool onesided_ = true;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "STFT", 17, kLatestOpset, StftKernel);

}  // namespace onyx
