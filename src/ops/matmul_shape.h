// Static output shape of numpy.matmul, shared by MatMul, MatMulInteger and QLinearMatMul:
// A [..., M, K] or [K], B [..., K, N] or [K]; a 1-D A gets a leading 1 and a 1-D B a trailing
// 1, both dropped from the result; batch dims broadcast.
#pragma once
#include "ops/op_rule.h"

namespace onyx::ops {

// Unknown rank when either rank is unknown. Error only on a certain clash (K, batch dims).
Result<SymbolicShape> matmul_output_shape(const SymbolicShape& a, const SymbolicShape& b);

// Sets output 0 to matmul(input a_index, input b_index) with element type `elem`; a clash
// leaves the shape unknown and is returned.
Status infer_matmul_like(InferenceContext& ctx, int a_index, int b_index, DataType elem);

}  // namespace onyx::ops
