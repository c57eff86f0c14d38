// DFT: the discrete Fourier transform of real ([..., 1]) or complex ([..., 2]) signals along
// one axis, forward or inverse (scaled by 1/n), optionally onesided, with dft_length padding
// or truncation. Computed in double precision. Opset 17 takes the axis as an attribute
// (default 1); opset 20 takes it as input 2 (default -2).
// inverse=1 with onesided=1 is the inverse real FFT (numpy's irfft): the first n / 2 + 1
// input values (zero-padded when fewer) are one half of a Hermitian spectrum, and the output
// is the real signal of length n (dft_length, default 2 * (input length - 1)) with a last
// dim of 1; the imaginary parts of the values at 0 and n / 2 (even n) are ignored.
#include <algorithm>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/fft_common.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

// A scalar (or one-element) integer input, or `fallback` when omitted.
Result<int64_t> scalar_int_input(const KernelContext& ctx, int i, int64_t fallback, const char* what) {
  if (!ctx.has_input(i)) return fallback;
  const Tensor& t = ctx.input(i);
  if (!t.defined() || !is_integer_type(t.dtype()) || t.numel() != 1)
    return invalid_argument(what, " must be an integer scalar, got ", t.describe());
  return t.get_int64(0);
}

class DftKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axis_from_input_ = info.opset() >= 20;
    axis_ = info.attr_int("axis", axis_from_input_ ? -2 : 1);
    inverse_ = info.attr_int("inverse", 0) != 0;
    onesided_ = info.attr_int("onesided", 0) != 0;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return invalid_argument("DFT input must be a tensor");
    const int64_t rank = x.rank();
    if (rank < 2 || (x.dim(rank - 1) != 1 && x.dim(rank - 1) != 2))
      return invalid_argument("DFT input must have rank >= 2 and a last dim of 1 or 2, got ", x.describe());
    int64_t axis = axis_;
    if (axis_from_input_) {
      ONYX_ASSIGN_OR_RETURN(axis, scalar_int_input(ctx, 2, -2, "axis"));
    }
    if (axis < 0) axis += rank;
    if (axis < 0 || axis > rank - 2)
      return invalid_argument("DFT axis ", axis_from_input_ ? axis : axis_, " is out of range for ", x.describe());
    const int64_t n_in = x.dim(axis);
    const bool irfft = inverse_ && onesided_;
    ONYX_ASSIGN_OR_RETURN(const int64_t n, scalar_int_input(ctx, 1, irfft ? 2 * (n_in - 1) : n_in, "dft_length"));
    if (n <= 0) return invalid_argument("DFT length must be positive, got ", n);
    const int64_t out_len = irfft ? n : onesided_ ? n / 2 + 1 : n;
    const int64_t out_comp = irfft ? 1 : 2;
    Shape out_shape = x.shape();
    out_shape[size_t(axis)] = out_len;
    out_shape.back() = out_comp;
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), out_shape));
    if (y->numel() == 0) return Status::Ok();

    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
    for (int64_t d = axis + 1; d < rank - 1; ++d) inner *= x.dim(d);
    const int64_t comp = x.dim(rank - 1);
    // irfft reads the first half of the spectrum and mirrors it as conjugates.
    const int64_t used = std::min(irfft ? n / 2 + 1 : n, n_in);
    const fft::Plan plan(n, inverse_);
    const double scale = inverse_ ? 1.0 / double(n) : 1.0;
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      const T* in = x.data<T>();
      T* out = y->data<T>();
      parallel_for(outer * inner, std::max<int64_t>(1, 4096 / n), [&](int64_t begin, int64_t end) {
        std::vector<fft::Complex> buf(static_cast<size_t>(n)), scratch;
        for (int64_t line = begin; line < end; ++line) {
          const int64_t o = line / inner, i = line % inner;
          std::fill(buf.begin(), buf.end(), fft::Complex(0, 0));
          for (int64_t j = 0; j < used; ++j) {
            const T* v = in + ((o * n_in + j) * inner + i) * comp;
            buf[size_t(j)] = fft::Complex(double(compute_t<T>(v[0])), comp == 2 ? double(compute_t<T>(v[1])) : 0.0);
          }
          if (irfft)
            for (int64_t k = 1; k <= (n - 1) / 2; ++k) buf[size_t(n - k)] = std::conj(buf[size_t(k)]);
          plan.run(buf.data(), buf.data(), scratch);
          for (int64_t k = 0; k < out_len; ++k) {
            T* dst = out + ((o * out_len + k) * inner + i) * out_comp;
            dst[0] = static_cast<T>(static_cast<compute_t<T>>(buf[size_t(k)].real() * scale));
            if (!irfft) dst[1] = static_cast<T>(static_cast<compute_t<T>>(buf[size_t(k)].imag() * scale));
          }
        }
      });
      return Status::Ok();
    });
  }

 private:
  bool axis_from_input_ = false;
  int64_t axis_ = 1;
  bool inverse_ = false;
  bool onesided_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "DFT", 17, kLatestOpset, DftKernel);

}  // namespace onyx
