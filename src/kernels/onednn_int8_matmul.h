// Integer matrix products through oneDNN (VNNI brgemm where the CPU has it), shared by the
// quantised MatMul kernels:
//
//   acc (M x N, int32) = a (M x K, uint8 or int8) * b (K x N, int8)
//
// b is constant: packed once into the layout oneDNN prefers. Zero points and scales are the
// caller's (applied to acc afterwards, see quantized_matmul_common.h). Sums wrap at 32 bits
// beyond K of about 66,000 (255 * 127 * K). Primitives are cached per (M, a's signedness),
// bounded; run() is thread-safe.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/status.h"

namespace onyx::onednn {

class Int8MatMul {
 public:
  // Packs b (K x N, row-major) for products of about `m_hint` rows. Call once, before run().
  Status pack(const int8_t* b, int64_t k, int64_t n, int64_t m_hint);
  int64_t k() const { return k_; }
  int64_t n() const { return n_; }
  // acc = a * b for `m` rows of a (row-major, uint8 when a_unsigned, else int8).
  Status run(const void* a, bool a_unsigned, int64_t m, int32_t* acc) const;

 private:
  struct Entry {
    dnnl::matmul::primitive_desc pd;
    dnnl::matmul prim;
    dnnl::memory own_b;  // b in this primitive's layout, when it differs from the packed one
    bool has_own_b = false;
  };
  Result<std::shared_ptr<const Entry>> entry_for(int64_t m, bool a_unsigned) const;

  int64_t k_ = 0, n_ = 0;
  std::shared_ptr<const dnnl::memory> packed_;
  mutable std::mutex mu_;
  mutable std::map<std::pair<int64_t, bool>, std::shared_ptr<const Entry>> cache_;
};

}  // namespace onyx::onednn
