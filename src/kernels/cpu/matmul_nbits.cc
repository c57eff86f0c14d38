// com.microsoft MatMulNBits (contrib op, since 1): Y = A x W^T + bias with W (N x K) stored as
// `bits`-bit codes in blocks of block_size along K:
//   W[n, k] = (code(n, k) - zero_point[n, k / block_size]) * scales[n, k / block_size]
// Inputs: A (..., K) float32 or float16; B uint8 (N, k_blocks, block_size * bits / 8), codes
// packed LSB first; scales (N, k_blocks) of A's type; zero_points (optional): uint8 packed
// the same way per row (N, ceil(k_blocks * bits / 8)) or A's float type (N, k_blocks), absent
// meaning 2^(bits - 1); g_idx (deprecated: refused); bias (optional, N).
// Attributes K, N, bits (2, 4 or 8), block_size (a power of 2, >= 16), accuracy_level (a
// permission to compute in lower precision: 4 lets rows of A be quantised to int8 per block,
// which onyx takes for decoding (up to 16 rows with its panels, 3 otherwise) where the CPU has
// AVX-512 VNNI; 3 or more lets A be bfloat16, which onyx takes for prompts (more rows) where the
// CPU multiplies bf16 natively: A and the dequantised tiles rounded to bf16, float32 sums;
// float32 otherwise),
// weight_prepacked (nonzero layouts are device-private: refused).
// The weights stay packed in memory: constant codes are copied once, in prepare, and the session
// may drop the original B. 4- and 8-bit codes in blocks of a multiple of 32, on CPUs with AVX-512
// VNNI, are repacked as NBitsPanels (kernels/nbits_panels.h: 16 rows of W interleaved, streamed
// at memory speed once per 4 rows of A, up to 16 rows); other weights keep MatMulNBits's
// packing with the scales widened to float32 and the zero points one byte a block
// (kernels/nbits_matmul.h), and up to 3 rows of A stream them. More rows (a prompt) dequantise
// a tile of W (512 KB) at a time for oneDNN's product, the tiles split over the intra-op
// threads. The sums are float32.
#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "core/parallel.h"
#include "kernels/kernel.h"
#include "kernels/nbits_matmul.h"
#include "kernels/nbits_panels.h"
#include "kernels/onednn_bf16_matmul.h"
#include "kernels/onednn_matmul.h"

#include <oneapi/dnnl/dnnl.h>

namespace onyx {
namespace {

// B, scales and zero points checked against K, N, bits and block_size, in the form
// nbits_matmul reads. Codes are borrowed from B unless `copy_codes`.
struct UnpackedWeights {
  int64_t n = 0, k = 0, bits = 4, block = 32;
  const uint8_t* borrowed_codes = nullptr;
  std::vector<uint8_t> own_codes, zero_codes;
  std::vector<float> scales, zero_floats;

  NBitsWeights view() const {
    return NBitsWeights{n, k, bits, block, borrowed_codes ? borrowed_codes : own_codes.data(), scales.data(),
                        zero_codes.empty() ? nullptr : zero_codes.data(),
                        zero_floats.empty() ? nullptr : zero_floats.data()};
  }
};

// oneDNN builds its sgemm kernels on the first call in the process (about 30 ms here): done
// once while a session with packed weights is made, so that the first prompt does not pay it.
void warm_up_tile_products() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::vector<float> a(16 * 64, 0.5f), b(64 * 64, 0.25f), c(16 * 64);
    (void)dnnl_sgemm('N', 'N', 16, 64, 64, 1.f, a.data(), 64, b.data(), 64, 0.f, c.data(), 64);
  });
}

// A thread's tile buffers, kept from one prompt to the next (and grown, never shrunk): fresh
// ones in every call made the first prompt fault in about 0.5 MB per thread and product.
struct TileScratch {
  std::vector<float> tile, product;
  std::vector<uint16_t> tile_bf16;
};

TileScratch& tile_scratch() {
  thread_local TileScratch scratch;
  return scratch;
}

float as_float(const Tensor& t, int64_t i) {
  return t.dtype() == DataType::kFloat ? t.data<float>()[i] : float(t.data<Float16>()[i]);
}

class MatMulNBitsKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    k_ = info.attr_int("K", -1);
    n_ = info.attr_int("N", -1);
    bits_ = info.attr_int("bits", 4);
    block_ = info.attr_int("block_size", -1);
    accuracy_level_ = info.attr_int("accuracy_level", 0);
    if (k_ <= 0 || n_ <= 0) return invalid_argument("MatMulNBits: attributes K and N must be positive, got ", k_, " and ", n_);
    if (bits_ != 2 && bits_ != 4 && bits_ != 8)
      return not_implemented("MatMulNBits with bits = ", bits_, " (2, 4 and 8 have a published layout)");
    if (block_ < 16 || (block_ & (block_ - 1)) != 0)
      return invalid_argument("MatMulNBits: block_size must be a power of 2 of at least 16, got ", block_);
    if (info.attr_int("weight_prepacked", 0) != 0)
      return not_implemented("MatMulNBits with weight_prepacked (a device-private layout)");
    const auto& in = info.node().inputs;
    if (in.size() > 4 && !in[4].empty()) return not_implemented("MatMulNBits with g_idx (deprecated, undocumented)");
    has_zero_points_ = in.size() > 3 && !in[3].empty();
    has_bias_ = in.size() > 5 && !in[5].empty();
    const Tensor* b = info.constant_input(1);
    const Tensor* scales = info.constant_input(2);
    const Tensor* zp = has_zero_points_ ? info.constant_input(3) : nullptr;
    if (b && scales && (!has_zero_points_ || zp)) {
      ONYX_ASSIGN_OR_RETURN(constant_, unpack(*b, *scales, zp, /*copy_codes=*/true));
      packed_ = true;
      if (NBitsPanels::supports(constant_.view())) {
        panels_ = std::make_shared<const NBitsPanels>(constant_.view());
        constant_ = UnpackedWeights{};  // the panels hold all of W
        warm_up_tile_products();
      }
    }
    return Status::Ok();
  }

  std::vector<int> released_constant_inputs() const override {
    return packed_ ? std::vector<int>{1} : std::vector<int>{};
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    if (a.dtype() != DataType::kFloat && a.dtype() != DataType::kFloat16)
      return not_implemented("MatMulNBits (com.microsoft, opset 1) takes float32 or float16 A, got ", a.describe());
    if (a.rank() < 1 || a.shape().back() != k_)
      return invalid_argument("MatMulNBits: A ", a.describe(), " must end in K = ", k_);
    const Tensor& scales = ctx.input(2);
    if (scales.dtype() != a.dtype()) return invalid_argument("MatMulNBits: scales must have A's type, got ", scales.describe());
    Shape out_shape = a.shape();
    out_shape.back() = n_;
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, a.dtype(), out_shape));
    const int64_t rows = a.numel() / k_;
    if (rows == 0) return Status::Ok();
    const Tensor* bias = nullptr;
    if (has_bias_) {
      bias = &ctx.input(5);
      if (bias->dtype() != a.dtype() || bias->numel() != n_)
        return invalid_argument("MatMulNBits: bias ", bias->describe(), " must hold N = ", n_, " values of A's type");
    }
    UnpackedWeights at_run;
    if (!packed_) {
      ONYX_ASSIGN_OR_RETURN(at_run, unpack(ctx.input(1), scales, has_zero_points_ ? &ctx.input(3) : nullptr, false));
    }
    const NBitsWeights w = packed_ ? constant_.view() : at_run.view();
    std::vector<float> a_float, y_float;
    const float* a_rows = a.dtype() == DataType::kFloat ? a.data<float>() : nullptr;
    float* y_rows = a.dtype() == DataType::kFloat ? y->data<float>() : nullptr;
    if (!a_rows) {
      a_float.resize(size_t(a.numel()));
      for (int64_t i = 0; i < a.numel(); ++i) a_float[size_t(i)] = as_float(a, i);
      y_float.resize(size_t(rows * n_));
      a_rows = a_float.data();
      y_rows = y_float.data();
    }
    if (panels_ && rows <= NBitsPanels::kMaxRows && accuracy_level_ >= 4)
      panels_->multiply_int8_activations(a_rows, rows, y_rows);
    else if (panels_ && rows <= NBitsPanels::kMaxRows)
      panels_->multiply(a_rows, rows, y_rows);
    else if (panels_)
      ONYX_RETURN_IF_ERROR(tiled_product(
          [this](int64_t n0, int64_t n1, float* out, int64_t ld) { panels_->dequantize_columns(n0, n1, out, ld); }, a_rows,
          rows, y_rows, /*tile_k_major=*/true));
    else if (rows <= kRowsStreamingW && accuracy_level_ >= 4 && nbits_int8_activations_vectorized(w))
      nbits_matmul_int8_activations(w, a_rows, rows, y_rows);
    else if (rows <= kRowsStreamingW)
      nbits_matmul(w, a_rows, rows, y_rows);
    else
      ONYX_RETURN_IF_ERROR(tiled_product(
          [&w](int64_t n0, int64_t n1, float* out, int64_t ld) { nbits_dequantize_rows(w, n0, n1, out, ld); }, a_rows, rows,
          y_rows, /*tile_k_major=*/false));
    if (bias)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t n = 0; n < n_; ++n) y_rows[r * n_ + n] += as_float(*bias, n);
    if (!y_float.empty()) {
      Float16* out = y->data<Float16>();
      for (size_t i = 0; i < y_float.size(); ++i) out[i] = Float16(y_float[i]);
    }
    return Status::Ok();
  }

 private:
  Result<UnpackedWeights> unpack(const Tensor& b, const Tensor& scales, const Tensor* zp, bool copy_codes) const {
    const int64_t blocks = (k_ + block_ - 1) / block_;
    const int64_t blob = block_ * bits_ / 8;
    if (b.dtype() != DataType::kUInt8 || b.numel() != n_ * blocks * blob)
      return invalid_argument("MatMulNBits: B must be uint8 (N, k_blocks, blob) = (", n_, ", ", blocks, ", ", blob, "), got ",
                              b.describe());
    if (scales.dtype() != DataType::kFloat && scales.dtype() != DataType::kFloat16)
      return invalid_argument("MatMulNBits: scales must be float32 or float16, got ", scales.describe());
    if (scales.numel() != n_ * blocks)
      return invalid_argument("MatMulNBits: scales must hold N * k_blocks = ", n_ * blocks, " values, got ", scales.describe());
    UnpackedWeights u;
    u.scales.resize(size_t(n_ * blocks));
    for (int64_t i = 0; i < n_ * blocks; ++i) u.scales[size_t(i)] = as_float(scales, i);
    if (zp) {
      const int64_t zp_row = (blocks * bits_ + 7) / 8;
      if (zp->dtype() == DataType::kUInt8) {
        if (zp->numel() != n_ * zp_row)
          return invalid_argument("MatMulNBits: packed zero_points must hold N * ceil(k_blocks * bits / 8) = ", n_ * zp_row,
                                  " bytes, got ", zp->describe());
        u.zero_codes.resize(size_t(n_ * blocks));
        const uint8_t* packed = zp->data<uint8_t>();
        for (int64_t n = 0; n < n_; ++n)
          for (int64_t j = 0; j < blocks; ++j) {
            const int64_t bit = j * bits_;
            u.zero_codes[size_t(n * blocks + j)] = uint8_t((packed[n * zp_row + bit / 8] >> (bit % 8)) & ((1 << bits_) - 1));
          }
      } else if (zp->dtype() == scales.dtype()) {
        if (zp->numel() != n_ * blocks)
          return invalid_argument("MatMulNBits: float zero_points must hold N * k_blocks = ", n_ * blocks, " values, got ",
                                  zp->describe());
        u.zero_floats.resize(size_t(n_ * blocks));
        for (int64_t i = 0; i < n_ * blocks; ++i) u.zero_floats[size_t(i)] = as_float(*zp, i);
      } else {
        return invalid_argument("MatMulNBits: zero_points must be uint8 or the scales' type, got ", zp->describe());
      }
    }
    u.n = n_, u.k = k_, u.bits = bits_, u.block = block_;
    if (copy_codes) u.own_codes.assign(b.data<uint8_t>(), b.data<uint8_t>() + b.numel());
    else u.borrowed_codes = b.data<uint8_t>();
    return u;
  }

  // Many rows (a prompt): W dequantised kTileBytes at a time (rows of W, so columns of y) and
  // multiplied by oneDNN; y's columns of the tile copied into place.
  // `dequantize(n0, n1, out, ld)` writes W's rows [n0, n1) into out: as rows of K floats ld
  // apart, or with `tile_k_major` transposed (K rows of n1 - n0 floats, ld apart: B of the
  // product as it is). Every tile is multiplied at the full tile width (the last one's columns
  // past N hold whatever the tile held: finite, and never copied out), so a prompt makes one
  // product shape per K: one oneDNN primitive to compile on the first run instead of one per
  // remainder width.
  Status tiled_product(const std::function<void(int64_t, int64_t, float*, int64_t)>& dequantize, const float* a,
                       int64_t rows, float* y, bool tile_k_major) const {
    // The widest tile within kTileBytes (16 to 256 columns), then as many tiles as that needs
    // rounded up to a multiple of the threads, so that no thread gets one tile more than another
    // (N = 768 at K = 768 made 5 tiles of 160: 3 against 2 on two threads).
    const int64_t widest = std::max<int64_t>(16, std::min<int64_t>(256, kTileBytes / (4 * k_)) / 16 * 16);
    const int64_t threads = std::max(1, intra_op_threads());
    int64_t tiles = (n_ + widest - 1) / widest;
    if (tiles > 1 && threads > 1) tiles = (tiles + threads - 1) / threads * threads;
    const int64_t width = std::max<int64_t>(16, ((n_ + tiles - 1) / tiles + 15) / 16 * 16);
    tiles = (n_ + width - 1) / width;
    // With accuracy_level 3 or more and native bf16 products, A is rounded to bf16 once and each
    // dequantised tile before its product.
    const bool bf16 = accuracy_level_ >= 3 && onednn::bf16_products_available();
    std::vector<uint16_t> a_bf16(bf16 ? size_t(rows * k_) : 0);
    if (bf16) onednn::floats_to_bf16(a, a_bf16.data(), rows * k_);
    // Tiles go to the intra-op threads whole: each dequantises its own and runs oneDNN on it
    // (serially, inside the parallel region), so no thread waits on another per tile.
    std::mutex failed_mu;
    Status failed = Status::Ok();
    parallel_for(tiles, 1, [&](int64_t t0, int64_t t1) {
      // The thread's kept buffers, unless this prompt's product would make them larger than
      // kKeptScratchBytes (a long prompt): then buffers of this call alone.
      TileScratch own;
      TileScratch& scratch = size_t(rows * width) * sizeof(float) <= kKeptScratchBytes ? tile_scratch() : own;
      std::vector<float>& tile = scratch.tile;
      std::vector<float>& product = scratch.product;
      std::vector<uint16_t>& tile_bf16 = scratch.tile_bf16;
      if (tile.size() < size_t(width * k_)) tile.resize(size_t(width * k_));
      if (product.size() < size_t(rows * width)) product.resize(size_t(rows * width));
      if (bf16 && tile_bf16.size() < size_t(width * k_)) tile_bf16.resize(size_t(width * k_));
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t n0 = t * width, cols = std::min(width, n_ - n0);
        dequantize(n0, n0 + cols, tile.data(), tile_k_major ? width : k_);
        Status s;
        if (bf16) {
          onednn::floats_to_bf16(tile.data(), tile_bf16.data(), width * k_);
          s = bf16_tile_matmul_.run(rows, width, k_, a_bf16.data(), tile_bf16.data(), !tile_k_major, product.data());
        } else {
          const onednn::MatMulShape shape = tile_k_major ? onednn::MatMulShape{{rows, k_}, {k_, width}, false, false}
                                                         : onednn::MatMulShape{{rows, k_}, {width, k_}, false, true};
          s = tile_matmul_.run(shape, a, tile.data(), nullptr, product.data());
        }
        if (!s.ok()) {
          std::lock_guard<std::mutex> lock(failed_mu);
          if (failed.ok()) failed = std::move(s);
          return;
        }
        for (int64_t r = 0; r < rows; ++r) std::memcpy(y + r * n_ + n0, product.data() + r * width, size_t(cols) * sizeof(float));
      }
    });
    return failed;
  }

  static constexpr int64_t kRowsStreamingW = 3;  // up to this many rows, each row streams the packed W
  static constexpr int64_t kTileBytes = 1 << 19;
  static constexpr size_t kKeptScratchBytes = size_t(4) << 20;  // a thread keeps up to this much product

  int64_t k_ = 0, n_ = 0, bits_ = 4, block_ = 32, accuracy_level_ = 0;
  bool has_zero_points_ = false, has_bias_ = false, packed_ = false;
  UnpackedWeights constant_;                   // constant W in MatMulNBits's packing, or
  std::shared_ptr<const NBitsPanels> panels_;  // constant W repacked (constant_ then empty)
  onednn::MatMul tile_matmul_{onednn::MatMulEpilogue{}};
  onednn::Bf16MatMul bf16_tile_matmul_;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "MatMulNBits", 1, kLatestOpset, MatMulNBitsKernel);

}  // namespace onyx
