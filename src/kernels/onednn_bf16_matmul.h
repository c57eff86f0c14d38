// Float32 products taken in bfloat16, for kernels whose op allows that precision (MatMulNBits
// with accuracy_level 3 or more: "A may be bf16 or coarser"), on CPUs that multiply bf16
// natively (onednn::bf16_products_available(): AVX512_BF16 or AMX), where oneDNN's bf16 matmul
// runs at twice its float32 speed.
//
//   y (m x n, float32) = a (m x k) * op(b)       a, b bfloat16, plain row-major
//
// b is stored [k, n], or [n, k] when trans_b. Sums are float32. Primitives are cached per shape
// (bounded); run() is thread-safe.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/status.h"

namespace onyx::onednn {

class Bf16MatMul {
 public:
  Status run(int64_t m, int64_t n, int64_t k, const uint16_t* a, const uint16_t* b, bool trans_b, float* y) const;

 private:
  struct Entry {
    dnnl::matmul::primitive_desc pd;
    dnnl::matmul prim;
  };
  mutable std::mutex mu_;
  mutable std::map<std::tuple<int64_t, int64_t, int64_t, bool>, std::shared_ptr<const Entry>> cache_;
};

// Whether this CPU has AVX-512F and AVX512_BF16 (vcvtne2ps2bf16, vdpbf16ps).
bool cpu_has_avx512_bf16();

// y[i] = x[i] rounded to bfloat16 (to nearest even; NaN stays NaN), vectorised on AVX512_BF16.
void floats_to_bf16(const float* x, uint16_t* y, int64_t n);

}  // namespace onyx::onednn
