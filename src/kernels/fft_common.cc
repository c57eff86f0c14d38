#include "kernels/fft_common.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace onyx::fft {
namespace {

constexpr int64_t kDirectMaxLength = 64;

bool is_pow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// exp(sign * 2*pi*i * k / n) for k < count, each computed directly (no accumulated error).
std::vector<Complex> twiddles(int64_t n, int64_t count, double sign) {
  std::vector<Complex> t(static_cast<size_t>(count));
  for (int64_t k = 0; k < count; ++k) {
    const double angle = sign * 2.0 * std::numbers::pi * double(k) / double(n);
    t[size_t(k)] = Complex(std::cos(angle), std::sin(angle));
  }
  return t;
}

// In-place iterative radix-2 transform of a[0..n); tw[k] = exp(s 2 pi i k/n) for k < n/2.
void fft_pow2(Complex* a, int64_t n, const Complex* tw) {
  for (int64_t i = 1, j = 0; i < n; ++i) {
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (int64_t len = 2; len <= n; len <<= 1) {
    const int64_t half = len >> 1, stride = n / len;
    for (int64_t start = 0; start < n; start += len) {
      for (int64_t k = 0; k < half; ++k) {
        const Complex u = a[start + k];
        const Complex v = a[start + k + half] * tw[k * stride];
        a[start + k] = u + v;
        a[start + k + half] = u - v;
      }
    }
  }
}

}  // namespace

Plan::Plan(int64_t n, bool inverse) : n_(n) {
  const double sign = inverse ? 1.0 : -1.0;
  if (is_pow2(n)) {
    kind_ = Kind::kPow2;
    twiddle_ = twiddles(n, std::max<int64_t>(1, n / 2), sign);
  } else if (n <= kDirectMaxLength) {
    kind_ = Kind::kDirect;
    twiddle_ = twiddles(n, n, sign);
  } else {
    kind_ = Kind::kBluestein;
    m_ = 1;
    while (m_ < 2 * n - 1) m_ <<= 1;
    // c_j = exp(s pi i j^2 / n) = exp(s 2 pi i (j^2 mod 2n) / (2n)); j^2 mod 2n kept exact.
    chirp_.resize(size_t(n));
    int64_t sq = 0;
    for (int64_t j = 0; j < n; ++j) {
      if (j > 0) sq = (sq + 2 * j - 1) % (2 * n);
      const double angle = sign * std::numbers::pi * double(sq) / double(n);
      chirp_[size_t(j)] = Complex(std::cos(angle), std::sin(angle));
    }
    m_twiddle_ = twiddles(m_, m_ / 2, -1.0);
    filter_fft_.assign(size_t(m_), Complex(0, 0));
    filter_fft_[0] = std::conj(chirp_[0]);
    for (int64_t j = 1; j < n; ++j) {
      filter_fft_[size_t(j)] = std::conj(chirp_[size_t(j)]);
      filter_fft_[size_t(m_ - j)] = std::conj(chirp_[size_t(j)]);
    }
    fft_pow2(filter_fft_.data(), m_, m_twiddle_.data());
  }
}

void Plan::run(const Complex* in, Complex* out, std::vector<Complex>& scratch) const {
  const int64_t n = n_;
  switch (kind_) {
    case Kind::kPow2:
      if (out != in) std::copy_n(in, n, out);
      fft_pow2(out, n, twiddle_.data());
      return;
    case Kind::kDirect: {
      scratch.assign(in, in + n);
      for (int64_t k = 0; k < n; ++k) {
        Complex sum(0, 0);
        int64_t idx = 0;  // (j * k) mod n
        for (int64_t j = 0; j < n; ++j) {
          sum += scratch[size_t(j)] * twiddle_[size_t(idx)];
          idx += k;
          if (idx >= n) idx -= n;
        }
        out[k] = sum;
      }
      return;
    }
    case Kind::kBluestein: {
      scratch.assign(size_t(m_), Complex(0, 0));
      for (int64_t j = 0; j < n; ++j) scratch[size_t(j)] = in[j] * chirp_[size_t(j)];
      fft_pow2(scratch.data(), m_, m_twiddle_.data());
      // Inverse transform of the product via conj(FFT(conj(.))).
      for (int64_t j = 0; j < m_; ++j) scratch[size_t(j)] = std::conj(scratch[size_t(j)] * filter_fft_[size_t(j)]);
      fft_pow2(scratch.data(), m_, m_twiddle_.data());
      const double scale = 1.0 / double(m_);
      for (int64_t k = 0; k < n; ++k) out[k] = chirp_[size_t(k)] * std::conj(scratch[size_t(k)]) * scale;
      return;
    }
  }
}

}  // namespace onyx::fft
