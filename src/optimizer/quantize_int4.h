// Block-wise 4-bit (or, with bits = 8, 8-bit) weight quantisation (`onyx quantize --int4
// [--bits 8]`): every float32 MatMul (and Gemm of the plain form) whose weights B are a 2-D
// initializer becomes a com.microsoft MatMulNBits in ONNX Runtime's layout, so ORT runs the same
// file:
//   B (N, k_blocks, block_size * bits / 8) uint8: 4 bits two codes a byte, the even k in the low
//   nibble; 8 bits one code a byte; scales (N * k_blocks) float32; zero_points (N *
//   ceil(k_blocks * bits / 8)) uint8 packed the same way (asymmetric only; symmetric weights use
//   the default 2^(bits-1)); attributes K, N, bits, block_size, accuracy_level (when given).
// Per block of block_size values of a column of B (K not a multiple of the block: the last block
// is padded with zeros), with M = 2^(bits-1) and L = 2^bits - 1:
//   symmetric:  scale = v / -M with v the value of largest magnitude, so v is code 0 and zero is
//               code M exactly; code = clamp(round(x / scale) + M, 0, L)
//   asymmetric: lo = min(0, min x), hi = max(0, max x), scale = (hi - lo) / L,
//               zero = clamp(round(-lo / scale), 0, L), code = clamp(round(x / scale) + zero, 0, L)
// Rounding is to nearest, ties to even; a block of zeros gets scale 1. A tool transform, not an
// automatic pass.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace onyx::optimizer {

struct Int4QuantizeOptions {
  int64_t block_size = 32;      // a power of 2, >= 16
  int64_t bits = 4;             // 4 or 8
  bool symmetric = false;
  int64_t accuracy_level = -1;  // written as the attribute when >= 0
  std::set<std::string> exclude_op_types;
  std::set<std::string> exclude_nodes;
};

struct Int4QuantizeReport {
  struct NodeResult {
    std::string node, op_type;
    bool quantized = false;
    std::string reason;
  };
  std::vector<NodeResult> nodes;  // every MatMul and Gemm of the main graph
  int quantized = 0;
  int64_t weight_bytes_before = 0, weight_bytes_after = 0;  // codes, scales and zero points
};

// Rewrites `model`'s main graph in place (adding the com.microsoft opset import when needed;
// float weights no other node reads are dropped).
Result<Int4QuantizeReport> quantize_int4(ir::Model& model, const Int4QuantizeOptions& options);

}  // namespace onyx::optimizer
