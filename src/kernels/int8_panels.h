// Integer products with constant int8 weights, packed for AVX-512 VNNI (vpdpbusd), for the
// quantised MatMul kernels (quantized_matmul_common.h) on CPUs that have it:
//
//   acc (rows x N, int32) = a (rows x K, uint8) * b (K x N, int8)
//
// b is packed once as panels of 16 columns: panel p holds, for each group of 4 rows of b
// (k = 4g .. 4g + 3), the 16 columns' 4 values (64 bytes), K and N padded with zeros. One
// vpdpbusd multiplies 4 values of a row of a (broadcast) with a group: 64 products. Panels go
// in quads (64 columns) stored group by group: group g of the quad's 4 panels is 256
// consecutive bytes, so the quad is one sequential stream that a single row reads at memory
// speed, with software prefetch. Rows of a go 4 at a time against a quad (16 sums in
// registers). Sums are exact and wrap at 32 bits like oneDNN's.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

namespace onyx {

class Int8Panels {
 public:
  // Whether this CPU runs the kernels (AVX-512 F, BW, VL and VNNI).
  static bool available();
  // Packs b (K x N, row-major). Replaces what was packed before.
  void pack(const int8_t* b, int64_t k, int64_t n);
  int64_t k() const { return k_; }
  int64_t n() const { return n_; }
  // acc = a * b for `rows` rows of a (row-major, K bytes each); acc row-major rows x N. Split
  // over the intra-op threads. Only where available().
  void multiply(const uint8_t* a, int64_t rows, int32_t* acc) const;

 private:
  int64_t k_ = 0, n_ = 0, groups_ = 0, panels_ = 0;
  std::shared_ptr<int8_t[]> data_;  // quads x groups_ x 4 panels x 64, 64-byte aligned, never changed once packed
};

}  // namespace onyx
