// Dense products for the ai.onnx.ml linear and SVM kernels (LinearClassifier, LinearRegressor,
// SVMClassifier, SVMRegressor), in float32 as ONNX Runtime computes them: feature rows times
// a constant matrix stored [rows, features] row-major (coefficients, support vectors), through
// oneDNN's matmul, and the SVM kernel functions applied to such a product in blocks of rows.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/kernel.h"
#include "kernels/svm_common.h"

namespace onyx::onednn {
class MatMul;
}

namespace onyx::ml {

// A feature input X of float, double, int64 or int32, [C] (one row) or [N, C], as float32
// rows: X's own data when it is float32, else converted into `scratch`.
struct FloatRows {
  const float* data = nullptr;
  int64_t rows = 0, cols = 0;
  Tensor scratch;
};
Result<FloatRows> read_float_rows(KernelContext& ctx, int input, const char* op);

// y [n, rows] = x [n, features] . w^T (+ bias [rows]) for a constant w [rows, features].
class RowProducts {
 public:
  RowProducts();
  ~RowProducts();
  RowProducts(RowProducts&&) noexcept;
  RowProducts& operator=(RowProducts&&) noexcept;
  // bias: empty (none), one value (for every row of w) or `rows` values.
  Status init(std::vector<float> w, int64_t rows, int64_t features, std::vector<float> bias = {});
  Status run(const float* x, int64_t n, float* y) const;
  int64_t rows() const { return rows_; }
  int64_t features() const { return features_; }
  const std::vector<float>& weights() const { return w_; }

 private:
  std::vector<float> w_, bias_;
  int64_t rows_ = 0, features_ = 0;
  std::unique_ptr<onednn::MatMul> matmul_;
};

// K(x_r, v_j) for rows x [n, features] against constant vectors v [count, features]: one
// product x . v^T, then the kernel's function per element (RBF through |x|^2 + |v|^2 - 2 x.v,
// clamped at 0). `y` is [n, count].
class SvmKernelMatrix {
 public:
  Status init(const SvmKernel& kernel, std::vector<float> vectors, int64_t count, int64_t features);
  Status run(const float* x, int64_t n, float* y) const;
  int64_t count() const { return products_.rows(); }

 private:
  SvmKernel kernel_;
  RowProducts products_;
  std::vector<float> vector_norms_;  // |v_j|^2, for RBF
};

// Rows per block for products whose [block, width] results live in scratch: about 4 MiB.
int64_t rows_per_block(int64_t width);

}  // namespace onyx::ml
