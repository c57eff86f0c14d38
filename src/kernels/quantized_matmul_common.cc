#include "kernels/quantized_matmul_common.h"

#include <cstring>

#include "core/parallel.h"
#include "kernels/matmul_common.h"

namespace onyx {
namespace {

constexpr int64_t kRowsHint = 128;  // rows of A the packed layout is chosen for

// y[r, j] = (acc[r, j] - a_zero_point * sums[j]) * scale[j] + bias[j]. acc and y may be the
// same memory (a float32 y holding the int32 sums): elements are moved with memcpy, so no
// int32 object is read through a float and the element is read before it is written.
template <typename Out>
void scale_rows(const void* acc, int64_t rows, int64_t n, int32_t a_zero_point, const std::vector<int64_t>& sums,
                const std::vector<float>& scale, const float* bias, void* y) {
  const char* in = static_cast<const char*>(acc);
  char* out = static_cast<char*>(y);
  parallel_for(rows, std::max<int64_t>(1, 16384 / n), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t j = 0; j < n; ++j) {
        const size_t at = size_t(r * n + j);
        int32_t sum = 0;
        std::memcpy(&sum, in + at * sizeof(int32_t), sizeof(int32_t));
        const int64_t exact = int64_t(sum) - int64_t(a_zero_point) * sums[size_t(j)];
        const Out v = Out(float(int32_t(uint32_t(uint64_t(exact)))) * scale[size_t(j)] + (bias ? bias[j] : 0.f));
        std::memcpy(out + at * sizeof(Out), &v, sizeof(Out));
      }
  });
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
  w->column_sums_.assign(size_t(n), 0);
  for (int64_t r = 0; r < k; ++r)
    for (int64_t j = 0; j < n; ++j) {
      const int32_t v = value(r * n + j) - zero(j);
      if (v < -128 || v > 127) return nullptr;
      shifted[size_t(r * n + j)] = int8_t(v);
      w->column_sums_[size_t(j)] += v;
    }
  if (!w->matmul_.pack(shifted.data(), k, n, kRowsHint).ok()) return nullptr;
  return w;
}

Status QuantizedWeights::multiply(const void* a, bool a_unsigned, int64_t rows, int32_t a_zero_point,
                                  const std::vector<float>& scale, const float* bias, Tensor& y) const {
  const int64_t n = this->n();
  if (rows == 0) return Status::Ok();
  if (y.dtype() == DataType::kFloat) {
    void* acc = y.data<float>();
    ONYX_RETURN_IF_ERROR(matmul_.run(a, a_unsigned, rows, static_cast<int32_t*>(acc)));
    scale_rows<float>(acc, rows, n, a_zero_point, column_sums_, scale, bias, acc);
    return Status::Ok();
  }
  if (y.dtype() != DataType::kFloat16) return not_implemented("quantized matmul output ", y.describe());
  std::vector<int32_t> acc(size_t(rows * n));
  ONYX_RETURN_IF_ERROR(matmul_.run(a, a_unsigned, rows, acc.data()));
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
  const std::vector<int64_t> no_sums(size_t(n), 0);
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

}  // namespace onyx
