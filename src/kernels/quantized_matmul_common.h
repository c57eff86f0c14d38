// Quantised matrix products with float results, shared by com.microsoft MatMulIntegerToFloat
// and DynamicQuantizeMatMul:
//
//   Y = ((A - a_zero_point) x (B - b_zero_point)) * a_scale * b_scale + bias
//
// with numpy.matmul shapes; a_scale and a_zero_point per tensor; b_scale and b_zero_point per
// tensor or per column of B ([N]); bias [N]. The integer sums are exact and wrap at 32 bits
// as MatMulInteger's do; the scaling is float: float(sum) * (a_scale * b_scale[n]) + bias[n].
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/int8_panels.h"
#include "kernels/onednn_int8_matmul.h"

namespace onyx {

// A constant 2-D B (int8 or uint8) with its constant zero point, held as B - zero_point in
// int8 when every value fits (always so for int8 B with zero point 0, and for uint8 B with
// zero point 128), with the column sums of B - zero_point, packed once: in onyx's VNNI panels
// (int8_panels.h) where the CPU has AVX-512 VNNI (measured faster than oneDNN for the few rows
// of decoding and as fast for prompts, bench/RESULTS.md), else for oneDNN's int8 products.
class QuantizedWeights {
 public:
  // Null (and no error) when B or its zero point is not constant, B is not 2-D int8/uint8,
  // the zero point is not a scalar or [N] of B's type, or B - zero_point does not fit int8.
  static std::unique_ptr<QuantizedWeights> make(const Tensor* b, bool has_zero_point, const Tensor* zero_point);
  // How the products run, for Session's report.
  const char* implementation() const {
    return has_panels_ ? "oneDNN int8 matmul (B packed), VNNI panels up to 3 rows" : "oneDNN int8 matmul (B packed)";
  }
  int64_t k() const { return matmul_.k(); }
  int64_t n() const { return matmul_.n(); }
  // y[r, n] = (sum_k (a[r, k] - a_zero_point) * (B[k, n] - b_zero_point[n])) * scale[n] + bias[n]
  // for `rows` rows of a (row-major [rows, K], uint8 when a_unsigned, else int8). scale holds
  // a_scale * b_scale per column (N values), bias N values or null. y is float32 or float16
  // [rows, N]; a float32 y doubles as the int32 accumulator, so no scratch is needed.
  Status multiply(const void* a, bool a_unsigned, int64_t rows, int32_t a_zero_point, const std::vector<float>& scale,
                  const float* bias, Tensor& y) const;

 private:
  // acc = a * (B - zero_point); signed a goes to the panels as a + 128, its zero point moved
  // by the same 128 (returned in *a_zero_point).
  Status integer_product(const void* a, bool a_unsigned, int64_t rows, int32_t* a_zero_point, int32_t* acc) const;

  bool has_panels_ = false;
  Int8Panels panels_;
  onednn::Int8MatMul matmul_;
  std::vector<uint32_t> column_sums_;  // modulo 2^32, as the int32 sums wrap
};

// Any shapes and types (int8 / uint8 A and B, zero points per tensor, per row of A, per
// column of B): exact integer products, then scaled. a_zero_point and b_zero_point may be
// undefined (0). scale: a_scale * b_scale per column of the output (N values, or one).
Status quantized_matmul_reference(const Tensor& a, const Tensor& a_zero_point, const Tensor& b,
                                  const Tensor& b_zero_point, const std::vector<float>& scale, const float* bias,
                                  Tensor& y);

// DynamicQuantizeLinear's quantisation of n floats to uint8: range [min(0, min x),
// max(0, max x)] over 255 steps, zero point and values rounded half to even and saturated;
// an all-zero x gives scale 0, zero point 0 and q 0. NaN is an error.
Status quantize_dynamic_u8(const float* x, int64_t n, uint8_t* q, float* scale, uint8_t* zero_point);

// The per-column scale a_scale * b_scale over N columns: b_scale is one float value or [N]
// (float32 or float16); a_scale one value.
Result<std::vector<float>> column_scales(float a_scale, const Tensor& b_scale, int64_t n);
// A one-element float32 / float16 tensor's value.
Result<float> scalar_float(const Tensor& t, const char* name);
// bias as N floats (float32 or float16 [N]); empty when `bias` is null.
Result<std::vector<float>> bias_floats(const Tensor* bias, int64_t n);

}  // namespace onyx
