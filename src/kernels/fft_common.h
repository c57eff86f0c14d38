// One-dimensional discrete Fourier transforms in double precision, shared by the DFT and
// STFT kernels. Any length: radix-2 for powers of two, a direct sum for short lengths, and
// Bluestein's chirp-z algorithm (through a power-of-two transform) for the rest.
#pragma once
#include <complex>
#include <cstdint>
#include <vector>

namespace onyx::fft {

using Complex = std::complex<double>;

// A transform of one length and direction, built once and run many times; run() is const
// and thread-safe (each caller passes its own scratch).
class Plan {
 public:
  // out[k] = sum_j in[j] * exp(s * 2*pi*i * j*k / n), s = -1 forward and +1 inverse.
  // No 1/n scaling. Requires n >= 1.
  Plan(int64_t n, bool inverse);
  int64_t size() const { return n_; }
  // `in` and `out` hold size() values and may be the same array; `scratch` is resized as needed.
  void run(const Complex* in, Complex* out, std::vector<Complex>& scratch) const;

 private:
  enum class Kind { kPow2, kDirect, kBluestein };
  Kind kind_;
  int64_t n_;
  std::vector<Complex> twiddle_;  // kPow2: exp(s 2 pi i k/n), k < n/2; kDirect: k < n
  // Bluestein: chirp c_j = exp(s pi i j^2 / n), the forward twiddles of the power-of-two
  // length m >= 2n-1, and the transform of the conjugate chirp filter.
  int64_t m_ = 0;
  std::vector<Complex> chirp_;
  std::vector<Complex> m_twiddle_;
  std::vector<Complex> filter_fft_;
};

}  // namespace onyx::fft
