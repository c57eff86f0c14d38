// The hot loops of QLinearAdd / QLinearMul (qlinear_binary.h) for the common shapes: A and B of
// one shape, or B a single value. Built for AVX-512, AVX2 and baseline (target_clones), without
// fused multiply-adds, so every build rounds as the formulas in qlinear_binary.h say; split
// across the intra-op threads.
#pragma once
#include <cstdint>

#include "core/data_type.h"

namespace onyx {

struct QLinearBinaryParams {
  float a_scale, b_scale, c_scale;
  int32_t a_zero_point, b_zero_point, c_zero_point;
};

// c[i] = op(a[i], b[b_scalar ? 0 : i]) for n elements of type `type` (uint8 or int8). False
// (nothing written) when the scales are not finite with c_scale > 0: the caller then takes
// the general path.
bool qlinear_binary_span(bool mul, DataType type, const void* a, const void* b, bool b_scalar, void* c, int64_t n,
                         const QLinearBinaryParams& p);

}  // namespace onyx
