// Float32 matrix products through oneDNN's matmul primitive, shared by MatMul, Gemm and the
// fused ops built on them.
//
//   y = alpha * op(a) * op(b) [+ bias] [+ y]      (then an optional activation)
//
// a and b have one rank r >= 2: a [batch..., M, K] (stored [batch..., K, M] when trans_a),
// b [batch..., K, N] (stored [batch..., N, K] when trans_b); each batch dim of a and b is
// equal or 1 (broadcast). y is [broadcast batch..., M, N], dense. bias is [N].
//
// A constant b (weights) is repacked once, at the first run, into the layout oneDNN prefers
// and reused by every later run; primitives are cached per shape (a bounded cache), so a run
// with shapes seen before creates nothing. run() is thread-safe.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/status.h"

namespace onyx::onednn {

struct MatMulShape {
  std::vector<int64_t> a, b;  // as stored, same rank
  bool trans_a = false, trans_b = false;
};

// What happens after the product, fixed for the lifetime of a MatMul object.
struct MatMulEpilogue {
  float alpha = 1.0f;
  bool bias = false;        // add bias [N] (only with alpha == 1)
  bool accumulate = false;  // add the product to what y holds
  // oneDNN eltwise algorithm applied last (dnnl::algorithm::undef: none), with its alpha/beta.
  dnnl::algorithm activation = dnnl::algorithm::undef;
  float activation_alpha = 0.0f, activation_beta = 0.0f;
};

class MatMul {
 public:
  explicit MatMul(MatMulEpilogue epilogue) : epilogue_(epilogue) {}
  // b is constant: it may be packed once and the packed copy used instead. `b` must stay
  // valid and unchanged for this object's lifetime and be passed to every run().
  void set_constant_b(const float* b) { constant_b_ = b; }
  Status run(const MatMulShape& shape, const float* a, const float* b, const float* bias, float* y) const;

 private:
  struct Entry {
    dnnl::matmul::primitive_desc pd;
    dnnl::matmul prim;
    bool uses_packed_b = false;
  };
  Result<std::shared_ptr<const Entry>> entry_for(const MatMulShape& shape, const float* b) const;

  MatMulEpilogue epilogue_;
  const float* constant_b_ = nullptr;
  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const Entry>> cache_;
  mutable std::unique_ptr<dnnl::memory> packed_b_;  // set once, under mu_
  mutable bool packing_tried_ = false;
};

// Rank of the output of op(a) * op(b) with broadcasting; checks that the shapes fit.
Status check_matmul_shape(const MatMulShape& shape);

}  // namespace onyx::onednn
