// Batched float32 products too small for a oneDNN primitive: attention over a growing key/value
// cache multiplies one query row by K^T and the weights by V with a new key count every token,
// so oneDNN would build a new primitive (tens of microseconds) for a few thousand
// multiply-adds. onednn::MatMul::run hands such products here.
#pragma once
#include "kernels/onednn_matmul.h"

namespace onyx {

// y = alpha * op(a) * op(b) for `shape` (check_matmul_shape's rules, a not transposed, batch
// dims of a and b equal or 1) when every batch item is small (rows of a at most 4, or at most
// 16K multiply-adds); false (and nothing written) otherwise. Split over the intra-op threads by
// batch item.
bool small_batched_matmul(const onednn::MatMulShape& shape, float alpha, const float* a, const float* b, float* y);

}  // namespace onyx
