#include "kernels/quantized_matmul_common.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/parallel.h"
#include "kernels/matmul_common.h"
#include "kernels/quantize.h"
#include "kernels/target_clones.h"

namespace onyx {
namespace {

constexpr int64_t kRowsHint = 128;  // rows of A the packed layout is chosen for
constexpr int64_t kRowsByPanels = 3;  // up to this many rows (decoding) go through the VNNI panels

constexpr int64_t kChunk = 64;  // columns per step of scale_rows, through local buffers

// out[j] = float(acc[j] - a_zero * sums[j]) * scale[j] + bias[j] for j < n (n <= kChunk), the
// int32 arithmetic wrapping like the sums themselves.
ONYX_TARGET_CLONES void scale_chunk(const int32_t* acc, int64_t n, uint32_t a_zero, const uint32_t* sums,
                                    const float* scale, const float* bias, float* out) {
  for (int64_t j = 0; j < n; ++j) {
    const int32_t exact = int32_t(uint32_t(acc[j]) - a_zero * sums[j]);
    out[j] = float(exact) * scale[j] + (bias ? bias[j] : 0.f);
  }
}

// y[r, j] = (acc[r, j] - a_zero_point * sums[j]) * scale[j] + bias[j]. acc and y may be the
// same memory (a float32 y holding the int32 sums): each chunk is copied out before it is
// written back, so no int32 object is read through a float.
template <typename Out>
void scale_rows(const void* acc, int64_t rows, int64_t n, int32_t a_zero_point, const std::vector<uint32_t>& sums,
                const std::vector<float>& scale, const float* bias, void* y) {
  const char* in = static_cast<const char*>(acc);
  char* out = static_cast<char*>(y);
  parallel_for(rows, std::max<int64_t>(1, 16384 / n), [&](int64_t r0, int64_t r1) {
    int32_t sums_in[kChunk];
    float values[kChunk];
    Out converted[kChunk];
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t j0 = 0; j0 < n; j0 += kChunk) {
        const int64_t len = std::min(kChunk, n - j0);
        const size_t at = size_t(r * n + j0);
        std::memcpy(sums_in, in + at * sizeof(int32_t), size_t(len) * sizeof(int32_t));
        scale_chunk(sums_in, len, uint32_t(a_zero_point), sums.data() + j0, scale.data() + j0, bias ? bias + j0 : nullptr,
                    values);
        if constexpr (std::is_same_v<Out, float>) {
          std::memcpy(out + at * sizeof(float), values, size_t(len) * sizeof(float));
        } else {
          for (int64_t j = 0; j < len; ++j) converted[j] = Out(values[j]);
          std::memcpy(out + at * sizeof(Out), converted, size_t(len) * sizeof(Out));
        }
      }
  });
}

// q = saturate(round_half_even(x / scale) + zero_point) for n floats; the rounding adds and
// subtracts 1.5 * 2^23, exact for the |x / scale| <= 2^22 that the range guarantees.
ONYX_TARGET_CLONES void quantize_chunk_u8(const float* x, int64_t n, float scale, float zero_point, uint8_t* q) {
  constexpr float kRound = 12582912.f;
  for (int64_t i = 0; i < n; ++i) {
    float v = (x[i] / scale + kRound) - kRound + zero_point;
    v = v < 0.f ? 0.f : (v > 255.f ? 255.f : v);
    q[i] = uint8_t(v);
  }
}

ONYX_TARGET_CLONES void range_of(const float* x, int64_t n, float* lo_out, float* hi_out, bool* nan_out) {
  // 16 lanes kept apart, and the lane loop kept a loop (GCC's -O3 full unrolling would leave
  // it scalar), so that it vectorises; a NaN leaves the extremes and is reported by the mask.
  constexpr int kLanes = 16;
  float lo[kLanes] = {}, hi[kLanes] = {};
  uint32_t nan[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
#pragma GCC unroll 1
    for (int j = 0; j < kLanes; ++j) {
      const float v = x[i + j];
      lo[j] = std::min(lo[j], v);
      hi[j] = std::max(hi[j], v);
      nan[j] |= v != v ? 1u : 0u;
    }
  float l = 0.f, h = 0.f;
  uint32_t any_nan = 0;
  for (int j = 0; j < kLanes; ++j) {
    l = std::min(l, lo[j]);
    h = std::max(h, hi[j]);
    any_nan |= nan[j];
  }
  for (; i < n; ++i) {
    l = std::min(l, x[i]);
    h = std::max(h, x[i]);
    any_nan |= x[i] != x[i] ? 1u : 0u;
  }
  *lo_out = l;
  *hi_out = h;
  *nan_out = any_nan != 0;
}

}  // namespace

std::unique_ptr<QuantizedWeights> QuantizedWeights::make(const Tensor* b, bool has_zero_point, const Tensor* zero_point) {
  if (!b || b->rank() != 2 || b->numel() == 0 || (b->dtype() != DataType::kInt8 && b->dtype() != DataType::kUInt8))
    return nullptr;
  if (has_zero_point && !zero_point) return nullptr;  // given but not constant
  const int64_t k = b->dim(0), n = b->dim(1);
  if (zero_point && (zero_point->dtype() != b->dtype() || (zero_point->numel() != 1 && zero_point->shape() != Shape{n})))
    return nullptr;
  auto value = [&](int64_t i) -> int32_t {
    return b->dtype() == DataType::kInt8 ? int32_t(b->data<int8_t>()[i]) : int32_t(b->data<uint8_t>()[i]);
  };
  auto zero = [&](int64_t j) -> int32_t {
    if (!zero_point) return 0;
    const int64_t at = zero_point->numel() == 1 ? 0 : j;
    return b->dtype() == DataType::kInt8 ? int32_t(zero_point->data<int8_t>()[at])
                                         : int32_t(zero_point->data<uint8_t>()[at]);
  };
  std::vector<int8_t> shifted(size_t(k * n));
  auto w = std::make_unique<QuantizedWeights>();
  w->column_sums_.assign(size_t(n), 0u);
  for (int64_t r = 0; r < k; ++r)
    for (int64_t j = 0; j < n; ++j) {
      const int32_t v = value(r * n + j) - zero(j);
      if (v < -128 || v > 127) return nullptr;
      shifted[size_t(r * n + j)] = int8_t(v);
      w->column_sums_[size_t(j)] += uint32_t(v);  // modulo 2^32, like the sums
    }
  if (!w->matmul_.pack(shifted.data(), k, n, kRowsHint).ok()) return nullptr;
  if (Int8Panels::available()) {
    w->panels_.pack(shifted.data(), k, n);
    w->has_panels_ = true;
  }
  return w;
}

Status QuantizedWeights::integer_product(const void* a, bool a_unsigned, int64_t rows, int32_t* a_zero_point,
                                         int32_t* acc) const {
  if (!has_panels_ || rows > kRowsByPanels) return matmul_.run(a, a_unsigned, rows, acc);
  if (a_unsigned) {
    panels_.multiply(static_cast<const uint8_t*>(a), rows, acc);
    return Status::Ok();
  }
  std::vector<uint8_t> moved(size_t(rows * k()));
  const int8_t* signed_a = static_cast<const int8_t*>(a);
  for (size_t i = 0; i < moved.size(); ++i) moved[i] = uint8_t(int32_t(signed_a[i]) + 128);
  *a_zero_point += 128;
  panels_.multiply(moved.data(), rows, acc);
  return Status::Ok();
}

Status QuantizedWeights::multiply(const void* a, bool a_unsigned, int64_t rows, int32_t a_zero_point,
                                  const std::vector<float>& scale, const float* bias, Tensor& y) const {
  const int64_t n = this->n();
  if (rows == 0) return Status::Ok();
  if (y.dtype() == DataType::kFloat) {
    void* acc = y.data<float>();
    ONYX_RETURN_IF_ERROR(integer_product(a, a_unsigned, rows, &a_zero_point, static_cast<int32_t*>(acc)));
    scale_rows<float>(acc, rows, n, a_zero_point, column_sums_, scale, bias, acc);
    return Status::Ok();
  }
  if (y.dtype() != DataType::kFloat16) return not_implemented("quantized matmul output ", y.describe());
  std::vector<int32_t> acc(size_t(rows * n));
  ONYX_RETURN_IF_ERROR(integer_product(a, a_unsigned, rows, &a_zero_point, acc.data()));
  scale_rows<Float16>(acc.data(), rows, n, a_zero_point, column_sums_, scale, bias, y.data<Float16>());
  return Status::Ok();
}

Status quantized_matmul_reference(const Tensor& a, const Tensor& a_zero_point, const Tensor& b,
                                  const Tensor& b_zero_point, const std::vector<float>& scale, const float* bias,
                                  Tensor& y) {
  ONYX_ASSIGN_OR_RETURN(MatMulPlan plan, plan_matmul(a.shape(), b.shape()));
  if (plan.out != y.shape()) return error(StatusCode::kInternal, "quantized matmul output shape");
  ONYX_ASSIGN_OR_RETURN(std::vector<uint64_t> ac, subtract_zero_point(a, a_zero_point, true));
  ONYX_ASSIGN_OR_RETURN(std::vector<uint64_t> bc, subtract_zero_point(b, b_zero_point, false));
  if (y.numel() == 0) return Status::Ok();
  std::vector<uint64_t> acc(size_t(y.numel()));
  batched_matmul<uint64_t>(plan, ac.data(), bc.data(), acc.data());
  std::vector<int32_t> acc32(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) acc32[i] = int32_t(uint32_t(acc[i]));
  const int64_t n = plan.n, rows = y.numel() / std::max<int64_t>(n, 1);
  std::vector<float> full = scale;
  if (full.size() == 1) full.assign(size_t(n), scale[0]);
  const std::vector<uint32_t> no_sums(size_t(n), 0u);
  if (y.dtype() == DataType::kFloat) scale_rows<float>(acc32.data(), rows, n, 0, no_sums, full, bias, y.data<float>());
  else if (y.dtype() == DataType::kFloat16) scale_rows<Float16>(acc32.data(), rows, n, 0, no_sums, full, bias, y.data<Float16>());
  else return not_implemented("quantized matmul output ", y.describe());
  return Status::Ok();
}

Result<float> scalar_float(const Tensor& t, const char* name) {
  if (!t.defined() || t.numel() != 1 || (t.dtype() != DataType::kFloat && t.dtype() != DataType::kFloat16))
    return invalid_argument(name, " must be one float32 or float16 value, got ", t.describe());
  return t.dtype() == DataType::kFloat ? t.data<float>()[0] : float(t.data<Float16>()[0]);
}

Result<std::vector<float>> column_scales(float a_scale, const Tensor& b_scale, int64_t n) {
  if (!b_scale.defined() || (b_scale.dtype() != DataType::kFloat && b_scale.dtype() != DataType::kFloat16) ||
      (b_scale.numel() != 1 && b_scale.shape() != Shape{n}))
    return invalid_argument("b_scale must be one float value or [", n, "] (one per column of B), got ",
                            b_scale.describe());
  std::vector<float> s(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    const int64_t at = b_scale.numel() == 1 ? 0 : j;
    const float bs = b_scale.dtype() == DataType::kFloat ? b_scale.data<float>()[at] : float(b_scale.data<Float16>()[at]);
    s[size_t(j)] = a_scale * bs;
  }
  return s;
}

Result<std::vector<float>> bias_floats(const Tensor* bias, int64_t n) {
  if (!bias) return std::vector<float>{};
  if ((bias->dtype() != DataType::kFloat && bias->dtype() != DataType::kFloat16) || bias->shape() != Shape{n})
    return invalid_argument("bias must be float [", n, "], got ", bias->describe());
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j)
    v[size_t(j)] = bias->dtype() == DataType::kFloat ? bias->data<float>()[j] : float(bias->data<Float16>()[j]);
  return v;
}

Status quantize_dynamic_u8(const float* x, int64_t n, uint8_t* q, float* scale_out, uint8_t* zero_point_out) {
  float lo = 0.f, hi = 0.f;
  bool nan = false;
  range_of(x, n, &lo, &hi, &nan);
  if (nan) return invalid_argument("the float input to quantise contains NaN");
  const float scale = (hi - lo) / 255.0f;
  const uint8_t zp = scale > 0 ? saturate_round<uint8_t>(-lo / scale) : uint8_t(0);
  *scale_out = scale;
  *zero_point_out = zp;
  if (!(scale > 0)) {
    std::memset(q, 0, size_t(n));
    return Status::Ok();
  }
  parallel_for(n, 1 << 16, [&](int64_t i0, int64_t i1) { quantize_chunk_u8(x + i0, i1 - i0, scale, float(zp), q + i0); });
  return Status::Ok();
}

}  // namespace onyx
