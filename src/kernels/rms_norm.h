// Root-mean-square normalisation of rows, shared by SimplifiedLayerNormalization (ai.onnx
// domain, as ONNX Runtime registers it) and com.microsoft SkipSimplifiedLayerNormalization:
//
//   y = v * inv * scale,   inv = 1 / sqrt(mean(v^2) + epsilon)
//
// (no mean subtracted, no bias). Rows of any float type; float32 rows are summed in 16 float
// lanes, float16 / bfloat16 rows converted to float, double rows kept in double.
#pragma once
#include <cstdint>

namespace onyx {

// Sum of v[i]^2 over n floats.
float sum_of_squares(const float* v, int64_t n);
// y[i] = v[i] * inv * scale[i]; y may be v.
void scale_row(const float* v, float inv, const float* scale, float* y, int64_t n);

}  // namespace onyx
