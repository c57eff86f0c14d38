// com.microsoft MatMulNBits (contrib op, since 1): Y = A x W^T + bias with W (N x K) stored as
// `bits`-bit codes in blocks of block_size along K:
//   W[n, k] = (code(n, k) - zero_point[n, k / block_size]) * scales[n, k / block_size]
// Inputs: A (..., K) float32 or float16; B uint8 (N, k_blocks, block_size * bits / 8), codes
// packed LSB first; scales (N, k_blocks) of A's type; zero_points (optional): uint8 packed
// the same way per row (N, ceil(k_blocks * bits / 8)) or A's float type (N, k_blocks), absent
// meaning 2^(bits - 1); g_idx (deprecated: refused); bias (optional, N).
// Attributes K, N, bits (2, 4 or 8), block_size (a power of 2, >= 16), accuracy_level (a
// permission to compute in lower precision: ignored, float32 is always allowed),
// weight_prepacked (nonzero layouts are device-private: refused).
// Constant weights are dequantised once, in prepare, to float32 and packed for oneDNN (so they
// take 32 / bits times the packed bytes in memory); otherwise each run dequantises them.
#include <cstring>
#include <memory>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/onednn_matmul.h"

namespace onyx {
namespace {

class MatMulNBitsKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    k_ = info.attr_int("K", -1);
    n_ = info.attr_int("N", -1);
    bits_ = info.attr_int("bits", 4);
    block_ = info.attr_int("block_size", -1);
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
    matmul_ = std::make_unique<onednn::MatMul>(onednn::MatMulEpilogue{.bias = has_bias_});
    const Tensor* b = info.constant_input(1);
    const Tensor* scales = info.constant_input(2);
    const Tensor* zp = has_zero_points_ ? info.constant_input(3) : nullptr;
    if (b && scales && (!has_zero_points_ || zp) &&
        (scales->dtype() == DataType::kFloat || scales->dtype() == DataType::kFloat16)) {
      ONYX_ASSIGN_OR_RETURN(std::vector<float> w, dequantize(*b, *scales, zp));
      ONYX_ASSIGN_OR_RETURN(onednn::PackedWeights packed,
                            onednn::MatMul::pack_b(w.data(), {n_, k_}, /*trans_b=*/true, kRowsHint,
                                                   info.settings().bf16_gemm));
      matmul_->use_packed_b(std::move(packed));
      packed_ = true;
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
    Shape out_shape = a.shape();
    out_shape.back() = n_;
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, a.dtype(), out_shape));
    const int64_t rows = a.numel() / k_;
    if (rows == 0) return Status::Ok();
    std::vector<float> bias;
    if (has_bias_) {
      const Tensor& bt = ctx.input(5);
      if (bt.dtype() != a.dtype() || bt.numel() != n_)
        return invalid_argument("MatMulNBits: bias ", bt.describe(), " must hold N = ", n_, " values of A's type");
      bias = to_floats(bt);
    }
    const Tensor& scales = ctx.input(2);
    if (scales.dtype() != a.dtype()) return invalid_argument("MatMulNBits: scales must have A's type, got ", scales.describe());
    std::vector<float> w;
    if (!packed_) {
      ONYX_ASSIGN_OR_RETURN(w, dequantize(ctx.input(1), scales, has_zero_points_ ? &ctx.input(3) : nullptr));
    }
    onednn::MatMulShape shape{{rows, k_}, {n_, k_}, false, true};
    if (a.dtype() == DataType::kFloat)
      return matmul_->run(shape, a.data<float>(), w.data(), bias.empty() ? nullptr : bias.data(), y->data<float>());
    const std::vector<float> af = to_floats(a);
    std::vector<float> yf(size_t(rows * n_));
    ONYX_RETURN_IF_ERROR(matmul_->run(shape, af.data(), w.data(), bias.empty() ? nullptr : bias.data(), yf.data()));
    Float16* out = y->data<Float16>();
    for (size_t i = 0; i < yf.size(); ++i) out[i] = Float16(yf[i]);
    return Status::Ok();
  }

 private:
  static constexpr int64_t kRowsHint = 128;

  static std::vector<float> to_floats(const Tensor& t) {
    std::vector<float> v(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i)
      v[size_t(i)] = t.dtype() == DataType::kFloat ? t.data<float>()[i] : float(t.data<Float16>()[i]);
    return v;
  }

  // The `bits`-bit code t of a byte row packed LSB first.
  int32_t code(const uint8_t* row, int64_t t) const {
    const int64_t bit = t * bits_;
    return int32_t(row[bit / 8] >> (bit % 8)) & ((1 << bits_) - 1);
  }

  // W as N x K float32.
  Result<std::vector<float>> dequantize(const Tensor& b, const Tensor& scales, const Tensor* zp) const {
    const int64_t blocks = (k_ + block_ - 1) / block_;
    const int64_t blob = block_ * bits_ / 8;
    if (b.dtype() != DataType::kUInt8 || b.numel() != n_ * blocks * blob)
      return invalid_argument("MatMulNBits: B must be uint8 (N, k_blocks, blob) = (", n_, ", ", blocks, ", ", blob, "), got ",
                              b.describe());
    if (scales.numel() != n_ * blocks)
      return invalid_argument("MatMulNBits: scales must hold N * k_blocks = ", n_ * blocks, " values, got ", scales.describe());
    const std::vector<float> s = to_floats(scales);
    const int64_t zp_row = (blocks * bits_ + 7) / 8;
    std::vector<float> zf;
    if (zp) {
      if (zp->dtype() == DataType::kUInt8) {
        if (zp->numel() != n_ * zp_row)
          return invalid_argument("MatMulNBits: packed zero_points must hold N * ceil(k_blocks * bits / 8) = ", n_ * zp_row,
                                  " bytes, got ", zp->describe());
      } else if (zp->dtype() == scales.dtype()) {
        if (zp->numel() != n_ * blocks)
          return invalid_argument("MatMulNBits: float zero_points must hold N * k_blocks = ", n_ * blocks, " values, got ",
                                  zp->describe());
        zf = to_floats(*zp);
      } else {
        return invalid_argument("MatMulNBits: zero_points must be uint8 or the scales' type, got ", zp->describe());
      }
    }
    const float default_zero = float(1 << (bits_ - 1));
    std::vector<float> w(size_t(n_ * k_));
    const uint8_t* codes = b.data<uint8_t>();
    for (int64_t n = 0; n < n_; ++n)
      for (int64_t j = 0; j < blocks; ++j) {
        const float scale = s[size_t(n * blocks + j)];
        float zero = default_zero;
        if (zp && !zf.empty()) zero = zf[size_t(n * blocks + j)];
        else if (zp) zero = float(code(zp->data<uint8_t>() + n * zp_row, j));
        const uint8_t* blob_row = codes + (n * blocks + j) * blob;
        for (int64_t t = 0; t < block_ && j * block_ + t < k_; ++t)
          w[size_t(n * k_ + j * block_ + t)] = (float(code(blob_row, t)) - zero) * scale;
      }
    return w;
  }

  int64_t k_ = 0, n_ = 0, bits_ = 4, block_ = 32;
  bool has_zero_points_ = false, has_bias_ = false, packed_ = false;
  std::unique_ptr<onednn::MatMul> matmul_;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "MatMulNBits", 1, kLatestOpset, MatMulNBitsKernel);

}  // namespace onyx
