// 4- and 8-bit MatMulNBits weights repacked for products of few rows of A (decoding), read at
// memory speed on CPUs with AVX-512 VNNI. W is N x K as in kernels/nbits_matmul.h:
//   W[n, k] = (code(n, k) - zero(n, k / block)) * scale(n, k / block)
// with blocks of a multiple of 32 codes and zero points absent (2^(bits - 1)), one uint8 code a
// block, or one float a block.
//
// Layout. W's rows go in groups of 16 (the last one padded with zero codes and scales). For
// group g and block j the panel stream holds, for each 32 codes of the block (sub-block s: 4 *
// bits bytes per row in MatMulNBits's packing), `bits` 64-byte vectors, vector c holding bytes
// 4c .. 4c + 3 of the 16 rows in turn (row r at bytes 4r .. 4r + 3), then the 16 rows' scales as
// float32 (64 bytes). The zero points, where W has them, are a second stream: group g, block j:
// the 16 rows' zero codes (16 bytes) or float zero points (64 bytes). One group is one sequential
// stream, and one vpdpbusd multiplies 4 bytes of all 16 rows with 4 values of A broadcast, so
// every lane keeps its own row's sum: no horizontal reductions, and a block's scales apply as
// one vector.
//
// Within 32-bit lane c of a sub-block: with 4 bits, byte i holds codes 8c + 2i (low nibble) and
// 8c + 2i + 1 (high), so bits 4t .. 4t + 3 hold code 8c + t; with 8 bits, byte t holds code
// 4c + t.
#pragma once
#include <cstdint>
#include <memory>

#include "kernels/nbits_matmul.h"

namespace onyx {

struct NBitsPanelView;

class NBitsPanels {
 public:
  static constexpr int64_t kRowsAtOnce = 4;  // rows of A per pass over W (each group loaded once)
  // Up to this many rows of A the products stream W (one pass per kRowsAtOnce rows); beyond,
  // dequantised tiles and a GEMM are faster (MatMulNBits's prompts).
  static constexpr int64_t kMaxRows = 16;

  // Whether `w` packs here: 4- or 8-bit codes, block % 32 == 0 and at most 4096, and a CPU with
  // AVX-512 F, BW, VL and VNNI.
  static bool supports(const NBitsWeights& w);

  // Packs w (supports(w) must hold). The panels own their copy: w may go afterwards.
  explicit NBitsPanels(const NBitsWeights& w);

  int64_t n() const { return n_; }
  int64_t k() const { return k_; }
  int64_t bits() const { return bits_; }
  int64_t block() const { return block_; }

  // y (rows x N) = a (rows x K) W^T, rows >= 1, row-major, split over the intra-op threads by
  // groups of 16 rows of W; kRowsAtOnce rows of a per pass over W.
  // With int8 activations (MatMulNBits's accuracy_level 4): each row of a quantised per block
  // exactly as nbits_matmul_int8_activations does (a_scale = max |a| / 127, round half to even);
  // integer sums exact, scaled in float32.
  void multiply_int8_activations(const float* a, int64_t rows, float* y) const;
  // Float32 a and float32 sums (accuracy_level below 4).
  void multiply(const float* a, int64_t rows, float* y) const;

  // W's rows [n_begin, n_end) dequantised, as nbits_dequantize_rows: out[(n - n_begin) * ld + t]
  // = W[n, t] for t < K.
  void dequantize_rows(int64_t n_begin, int64_t n_end, float* out, int64_t ld) const;
  // W's rows [n_begin, n_end) transposed and dequantised: out[t * ld + (n - n_begin)] = W[n, t]
  // for t < K. n_begin must be a multiple of 16 and ld >= n_end - n_begin; nothing is written
  // outside those columns. Each 16 rows' codes for one t become one vector: the form a prompt's
  // product reads as B (K x columns).
  void dequantize_columns(int64_t n_begin, int64_t n_end, float* out, int64_t ld) const;

  // Bytes held (panels and zero points).
  int64_t bytes() const { return panel_bytes_ + zero_bytes_; }

 private:
  enum class Zeros { kNone, kCodes, kFloats };
  NBitsPanelView view() const;  // what the kernels read (nbits_panels.cc)

  int64_t n_ = 0, k_ = 0, bits_ = 4, block_ = 32, blocks_ = 0, groups_ = 0;
  int64_t sub_blocks_ = 1;    // block / 32
  int64_t block_stride_ = 0;  // bytes of one (group, block) in the panel stream
  int64_t panel_bytes_ = 0, zero_bytes_ = 0;
  Zeros zeros_kind_ = Zeros::kNone;
  std::shared_ptr<uint8_t[]> panels_;  // groups x blocks x block_stride_, 64-byte aligned
  std::shared_ptr<uint8_t[]> zeros_;   // groups x blocks x (16 codes | 16 floats), or null
};

}  // namespace onyx
