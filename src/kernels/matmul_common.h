// Numpy-style batched matrix products shared by MatMul, MatMulInteger and QLinearMatMul.
#pragma once
#include <cstdint>
#include <vector>

#include "core/shape.h"
#include "core/status.h"
#include "core/tensor.h"

namespace onyx {

// The shapes of matmul(A, B): A [..., M, K] or [K], B [..., K, N] or [K]. A 1-D A gets a
// leading 1 and a 1-D B a trailing 1, both removed from `out`; batch dims broadcast.
struct MatMulPlan {
  int64_t m = 0, n = 0, k = 0;
  Shape out;
  // For each batch item (row-major over the broadcast batch dims), the element offsets of its
  // A and B matrices.
  std::vector<int64_t> a_offsets, b_offsets;
};

// INVALID_ARGUMENT when K differs or the batch dims do not broadcast.
Result<MatMulPlan> plan_matmul(const Shape& a, const Shape& b);

// y[batch] = a[batch] (M x K) * b[batch] (K x N), y contiguous; float, double and uint64_t.
template <typename T>
void batched_matmul(const MatMulPlan& plan, const T* a, const T* b, T* y);

// y = matmul(a, b) by `plan` (from plan_matmul of their shapes) without oneDNN: floats in
// float or double (16-bit types converted), 32/64-bit integers wrapping; y allocated with
// plan.out and a's dtype.
Status matmul_reference(const MatMulPlan& plan, const Tensor& a, const Tensor& b, Tensor& y);

// The integer operand x (int8 / uint8) of MatMulInteger or QLinearMatMul minus its zero
// point, as wrapping uint64 values. `zero_point` (same type as x, or undefined for 0) is one
// value, or per row of A ([M], or A's shape with the last dim 1) when `is_a`, or per column
// of B ([N], or B's shape with dim -2 set to 1) otherwise.
Result<std::vector<uint64_t>> subtract_zero_point(const Tensor& x, const Tensor& zero_point, bool is_a);

}  // namespace onyx
