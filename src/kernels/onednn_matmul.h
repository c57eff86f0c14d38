// Float32 matrix products through oneDNN's matmul primitive, shared by MatMul, Gemm and the
// fused ops built on them.
//
//   y = alpha * op(a) * op(b) [+ bias] [+ y]      (then an optional activation)
//
// a and b have one rank r >= 2: a [batch..., M, K] (stored [batch..., K, M] when trans_a),
// b [batch..., K, N] (stored [batch..., N, K] when trans_b); each batch dim of a and b is
// equal or 1 (broadcast). y is [broadcast batch..., M, N], dense. bias is [N].
//
// A constant 2-D b (weights) is packed once, in the kernel's prepare, into the layout oneDNN
// prefers (pack_b); the packed copy replaces b: run() then ignores its b argument, and the
// kernel may let the session drop the original. Packed in bfloat16 (pack_b's `bf16`), the
// product is taken in bf16: run() rounds a to bf16 into per-thread scratch first, and sums
// and y stay float32. A shape whose primitive wants another layout
// gets its own copy, reordered from the packed one. Primitives are cached per shape (a bounded
// cache), so a run with shapes seen before creates nothing. run() is thread-safe.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/onednn.h"
#include "kernels/packed_row_product.h"

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
  // Packs a constant 2-D b, stored with dims `b_dims` (transposed when trans_b), into the layout
  // oneDNN picks for a product with `m_hint` rows. With `bf16`, packs it as bfloat16 when the
  // CPU multiplies bf16 natively (bf16_products_available), else as float32.
  static Result<PackedWeights> pack_b(const float* b, const std::vector<int64_t>& b_dims, bool trans_b, int64_t m_hint,
                                      bool bf16 = false);
  // pack_b of a kernel's constant 2-D float32 input. A weight whose aligned copy is still
  // pending (Buffer::deferred_copy: misaligned in the mapped model file) is packed from the
  // file's bytes, so a weight that is only packed is never copied whole.
  static Result<PackedWeights> pack_constant_b(const Tensor& b, bool trans_b, int64_t m_hint, bool bf16 = false);
  // From now on b is `packed` (shared with other MatMul objects of the same kernel); every
  // run's b must have the dims packed (2-D, or with leading 1s). A product of one row (up to 4
  // with float32) with a b packed in oneDNN's 64-column panels (AVX-512) is taken by
  // row_times_panels (kernels/packed_row_product.h), which streams the panels faster than
  // oneDNN's own kernels.
  void use_packed_b(PackedWeights packed);
  Status run(const MatMulShape& shape, const float* a, const float* b, const float* bias, float* y) const;

 private:
  // pack_b over float32 bytes at any address (oneDNN reads them as a reorder's source).
  static Result<PackedWeights> pack_bytes(const void* b, const std::vector<int64_t>& b_dims, bool trans_b,
                                          int64_t m_hint, bool bf16);
  struct Entry {
    dnnl::matmul::primitive_desc pd;
    dnnl::matmul prim;
    // bf16 products: a (float32, as stored) is reordered into pd's bf16 source first.
    bool bf16_src = false;
    dnnl::memory::desc a_f32;
    dnnl::reorder::primitive_desc to_bf16_pd;
    dnnl::reorder to_bf16;
    dnnl::memory own_b;  // the packed b in this primitive's layout, when that differs
    bool has_own_b = false;
  };
  Result<std::shared_ptr<const Entry>> entry_for(const MatMulShape& shape) const;

  // The rows of a product run() may take through row_times_panels (its layout and epilogue
  // allow it), or 0.
  int64_t panel_product_rows(const MatMulShape& shape) const;

  MatMulEpilogue epilogue_;
  PackedWeights packed_b_;  // null unless b is constant
  bool row_panels_ready_ = false;  // packed_b_ is in the panel layout: row_panels_ says where
  RowPanels row_panels_;
  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const Entry>> cache_;
};

// Rank of the output of op(a) * op(b) with broadcasting; checks that the shapes fit.
Status check_matmul_shape(const MatMulShape& shape);

// numpy.matmul of A and B as oneDNN sees it: 1-D operands made 2-D, ranks equalised with
// leading 1s, and the batch of A folded into its rows when B has no batch. A and B are
// stored as their shapes say (no transposes).
MatMulShape numpy_matmul_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
// op(a) @ op(b) with both operands as stored (rank 2 or more; the shorter gets leading 1s), op
// a transpose of the last two dims that oneDNN reads in place where trans_a / trans_b say.
MatMulShape stored_matmul_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b, bool trans_a, bool trans_b);

// True when the CPU multiplies bfloat16 natively (AVX512_BF16 or AMX), so bf16 products pay.
bool bf16_products_available();

}  // namespace onyx::onednn
