// Products with block-wise quantised weights, kept packed (MatMulNBits's layout, see
// kernels/cpu/matmul_nbits.cc): W is N x K, row n cut along K into blocks of `block` codes of
// `bits` bits (packed LSB first, `block * bits / 8` bytes a block), with one float scale and
// one zero point per block:  W[n, k] = (code(n, k) - zero(n, k / block)) * scale(n, k / block).
//
//   y[m, n] = sum_k a[m, k] * W[n, k]          (y is rows x N, a is rows x K, row-major)
//
// Weights are never expanded whole: each row of a (decoding) streams the codes once, dequantising
// in registers (4-bit codes with block % 32 == 0 on AVX-512 CPUs take a vector kernel; the rest a
// portable loop). For many rows (a prompt) the caller dequantises tiles of W with
// nbits_dequantize_rows for a GEMM instead (kernels/cpu/matmul_nbits.cc). Codes past K in the
// last block are ignored.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace onyx {

struct NBitsWeights {
  int64_t n = 0, k = 0, bits = 4, block = 32;
  const uint8_t* codes = nullptr;        // N * blocks() * block_bytes() bytes
  const float* scales = nullptr;         // N * blocks()
  const uint8_t* zero_codes = nullptr;   // N * blocks() integer zero points, one byte each
  const float* zero_floats = nullptr;    // or N * blocks() float zero points; both null: 2^(bits-1)

  int64_t blocks() const { return (k + block - 1) / block; }
  int64_t block_bytes() const { return block * bits / 8; }
  float zero(int64_t n_index, int64_t block_index) const {
    const int64_t i = n_index * blocks() + block_index;
    if (zero_floats) return zero_floats[i];
    if (zero_codes) return float(zero_codes[i]);
    return float(int64_t(1) << (bits - 1));
  }
};

// y (rows x N) = a (rows x K) W^T, row by row, each split over the intra-op threads. a and y
// are float32. Meant for few rows: each row reads all of W.
void nbits_matmul(const NBitsWeights& w, const float* a, int64_t rows, float* y);

// The same product by the portable loops alone (tests compare the two on any machine).
void nbits_matmul_portable(const NBitsWeights& w, const float* a, int64_t rows, float* y);

// W's rows [n_begin, n_end) dequantised: out[(n - n_begin) * ld + t] = W[n, t] for t < K.
void nbits_dequantize_rows(const NBitsWeights& w, int64_t n_begin, int64_t n_end, float* out, int64_t ld);

// y = a W^T with each row of a quantised to int8 per block of K, as MatMulNBits's accuracy_level 4
// permits (kernels/nbits_matmul_int8.cc): a_scale = max |a| / 127 over the block, q = a / a_scale
// rounded half to even; the sums of q * code are exact integers, then scaled in float32. Meant
// for few rows (decoding): each row streams W once.
void nbits_matmul_int8_activations(const NBitsWeights& w, const float* a, int64_t rows, float* y);
void nbits_matmul_int8_activations_portable(const NBitsWeights& w, const float* a, int64_t rows, float* y);
// Whether the int8 form has a vector kernel here (4-bit, block % 32 == 0, AVX-512 VNNI).
bool nbits_int8_activations_vectorized(const NBitsWeights& w);

// The int8 quantisation of a's block [k0, k1) that accuracy_level 4 permits, shared by the int8
// kernels: a_scale = max |a| / 127 (0 when that is not finite), q_t = a_t / a_scale rounded half
// to even and clamped to [-127, 127] (NaN: 0). Calls put(t, q_t) for each t, adds the q_t to
// *sum, and returns a_scale.
template <class Put>
float quantize_block_int8(const float* a, int64_t k0, int64_t k1, int32_t* sum, Put put) {
  float amax = 0.f;
  for (int64_t t = k0; t < k1; ++t) amax = std::max(amax, std::abs(a[t]));
  const float scale = std::isfinite(amax) ? amax / 127.f : 0.f;
  const float inverse = scale > 0.f ? 1.f / scale : 0.f;
  for (int64_t t = k0; t < k1; ++t) {
    const float v = std::nearbyint(a[t] * inverse);
    const int8_t code = int8_t(std::isnan(v) ? 0.f : std::clamp(v, -127.f, 127.f));
    put(t, code);
    *sum += code;
  }
  return scale;
}

// For the vector kernels of both files (AVX-512 CPUs only): the zero-point term of row n,
// sum_j scale_nj * zero_nj * block_sums[j], 16 blocks a vector.
float nbits_zero_point_term(const NBitsWeights& w, int64_t n, const float* block_sums);

}  // namespace onyx
